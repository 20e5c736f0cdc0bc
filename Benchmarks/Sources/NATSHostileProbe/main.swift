// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// The client side of Benchmarks/tools/nats-hostile: runs the NATS client, the JetStream API or the
// bridge against the fake server there (fakenats.py), which misbehaves on purpose.
// usage: NATSHostileProbe <client|bridge|jsapi> <port> [seconds]
// Prints one line per observation on stdout, unbuffered: JSON objects, and STATS lines with the
// client's (and the bridge's) statistics. Environment: PROBE_LOG=1 (the client's log at debug
// level on stderr), PROBE_PING_MS (the keep-alive interval), PROBE_STEP and PROBE_ROUNDS (jsapi),
// PROBE_MAXHELD and PROBE_HANDLER_MS (bridge).
import EventDrivenSwift
import EventDrivenSwiftNATS
import Foundation
import Logging
import NIOCore
import Synchronization

func emit(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

struct TimedOut: Error, CustomStringConvertible { var description: String { "DRIVER-TIMEOUT" } }

/// The continuation of one ``withTimeout(_:_:)``, resumed once: by the body or by the timer.
final class Once<T: Sendable>: Sendable {
    let continuation = Mutex<CheckedContinuation<T, any Error>?>(nil)
    func finish(_ result: Result<T, any Error>) {
        continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume(with: result)
    }
}

/// Runs `body`, or throws ``TimedOut`` after `seconds`. The body is not awaited after a timeout
/// (it is cancelled and left running), so a body that ignores cancellation cannot hang the driver.
func withTimeout<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let once = Once<T>()
    return try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        once.continuation.withLock { $0 = c }
        let work = Task { do { once.finish(.success(try await body())) } catch { once.finish(.failure(error)) } }
        Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            work.cancel()
            once.finish(.failure(TimedOut()))
        }
    }
}

struct OrderPlaced: Eventable, Codable {
    var orderID: Int
    var amount: Double
}

let args = CommandLine.arguments
let mode = args.count > 1 ? args[1] : "client"
let port = args.count > 2 ? Int(args[2])! : 4222
let seconds = args.count > 3 ? Double(args[3])! : 10
let env = ProcessInfo.processInfo.environment
let logger: Logger = {
    var l = Logger(label: "probe")
    l.logLevel = ProcessInfo.processInfo.environment["PROBE_LOG"] == "1" ? .debug : .critical
    return l
}()

var config = try NATSClientConfiguration(server: "nats://127.0.0.1:\(port)")
config.connectTimeout = .seconds(3)
config.requestTimeout = .seconds(1)
config.reconnect.maximumDelay = .milliseconds(500)
if let ping = env["PROBE_PING_MS"], let ms = Int(ping) { config.pingInterval = .milliseconds(ms) }
let client = NATSClient(configuration: config, logger: logger)
client.setErrorHandler { error in emit("{\"errorHandler\":\"\(String(describing: error).prefix(200))\"}") }

func stats() -> String {
    let s = client.statistics
    return "connected=\(client.isConnected) in=\(s.messagesIn) out=\(s.messagesOut) connects=\(s.connects) "
        + "disc=\(s.disconnects) stale=\(s.staleConnections) perr=\(s.protocolErrors) serr=\(s.serverErrors) "
        + "obfull=\(s.outboundBufferFull) rto=\(s.requestTimeouts) rlost=\(s.requestsLost) "
        + "orphans=\(s.messagesWithoutSubscription) dropped=\(s.messagesDropped) ldm=\(s.lameDuckMoves) "
        + "close=\(client.closeReason.map { "\($0)" } ?? "-")"
}

let start = ContinuousClock.now
func elapsed() -> Double { Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000 }

func runClient() async {
    do {
        try await withTimeout(15) { try await client.connect() }
        emit("{\"connected\":true,\"t\":\(elapsed()),\"maxPayload\":\(client.serverInfo?.maxPayload ?? -1)}")
    } catch {
        emit("{\"connectError\":\"\(String(describing: error).prefix(300))\",\"t\":\(elapsed())}")
        emit("STATS \(stats())")
        return
    }
    let received = Counter()
    _ = try? client.subscribe(to: "s") { _ in received.add() }
    let stream = try? client.messages(on: "m", limit: 64)
    Task { if let stream { for await _ in stream {} } }
    var tick = 0
    while elapsed() < seconds {
        tick += 1
        let t = tick
        do {
            let reply = try await withTimeout(3) {
                try await client.request(ByteBuffer(string: "q\(t)"), to: "req.x", timeout: .seconds(1))
            }
            emit("{\"reply\":\"\(reply.string.prefix(60))\",\"t\":\(elapsed())}")
        } catch {
            emit("{\"requestError\":\"\(String(describing: error).prefix(200))\",\"t\":\(elapsed())}")
        }
        do {
            try await withTimeout(3) { try await client.flush() }
        } catch {
            emit("{\"flushError\":\"\(String(describing: error).prefix(200))\",\"t\":\(elapsed())}")
        }
        do { try client.publish(Array("p\(tick)".utf8), to: "pub.x") } catch {
            emit("{\"publishError\":\"\(String(describing: error).prefix(200))\"}")
        }
        emit("STATS t=\(elapsed()) recv=\(received.value) \(stats())")
        try? await Task.sleep(for: .milliseconds(500))
    }
    do {
        try await withTimeout(5) { await client.close() }
        emit("{\"closed\":true,\"t\":\(elapsed())}")
    } catch {
        emit("{\"closeHang\":true,\"t\":\(elapsed())}")
    }
}

final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

func runJSAPI() async {
    do {
        try await withTimeout(15) { try await client.connect() }
        emit("{\"connected\":true,\"t\":\(elapsed())}")
    } catch {
        emit("{\"connectError\":\"\(String(describing: error).prefix(300))\"}")
        return
    }
    var js = JetStream(client: client)
    js.timeout = .seconds(2)
    let wanted = JetStreamStreamConfiguration(
        name: "EDS", subjects: ["eds.>"], storage: .file, duplicateWindow: 120_000_000_000)
    let jsc = js
    let steps: [(String, @Sendable () async throws -> String)] = [
        ("streamInfo", { "\(String(describing: try await jsc.streamInfo("EDS")).prefix(200))" }),
        (
            "ensureStream",
            {
                try await jsc.ensureStream(wanted)
                return "ok"
            }
        ),
        ("consumerInfo", { "\(String(describing: try await jsc.consumerInfo(stream: "EDS", name: "w")).prefix(200))" }),
        (
            "ensureConsumer",
            {
                try await jsc.ensureConsumer(
                    stream: "EDS",
                    JetStreamConsumerConfiguration(
                        durableName: "w", deliverPolicy: "all", ackWait: 30_000_000_000, maxDeliver: 5,
                        filterSubject: "eds.orders", maxAckPending: 100))
            }
        ),
        ("publish", { "\(try await jsc.publish(ByteBuffer(string: "{}"), to: "eds.orders", headers: nil))" }),
        (
            "pull",
            {
                let sub = try JetStreamPullSubscription(jetStream: jsc, stream: "EDS", consumer: "w", capacity: 16)
                try await sub.fetch(batch: 8, expires: .seconds(1))
                let q = sub.queued
                let d = sub.droppedDeliveries
                sub.finish()
                return "queued=\(q) dropped=\(d) gone=\(sub.consumerGone)"
            }
        ),
    ]
    let only = env["PROBE_STEP"]
    var round = 0
    while elapsed() < seconds {
        round += 1
        for (name, step) in steps where only == nil || only == name {
            do {
                let result = try await withTimeout(8) { try await step() }
                emit(
                    "{\"step\":\"\(name)\",\"ok\":\"\(result.replacingOccurrences(of: "\"", with: "'"))\",\"t\":\(elapsed())}"
                )
            } catch {
                emit(
                    "{\"step\":\"\(name)\",\"error\":\"\(String(describing: error).prefix(300).replacingOccurrences(of: "\"", with: "'"))\",\"t\":\(elapsed())}"
                )
            }
        }
        emit("STATS t=\(elapsed()) \(stats())")
        if round >= Int(env["PROBE_ROUNDS"] ?? "3") ?? 3 { break }
    }
    do {
        try await withTimeout(5) { await client.close() }
        emit("{\"closed\":true}")
    } catch { emit("{\"closeHang\":true}") }
}

func runBridge() async {
    let bus = EventBus(label: "probe")
    let events = NATSEventRegistry()
    do { try events.register(OrderPlaced.self, name: "orders.placed", version: 1) } catch { fatalError("\(error)") }
    var configuration = NATSBridgeConfiguration()
    configuration.consumers.publishTimeout = .seconds(1)
    configuration.consumers.publishRetryWindow = .seconds(3)
    configuration.consumers.fetchExpiry = .milliseconds(500)
    configuration.consumers.maxHeld = Int(env["PROBE_MAXHELD"] ?? "64") ?? 64
    configuration.consumers.fetchBatch = min(16, configuration.consumers.maxHeld)
    let bridge = NATSBridge(
        bus: bus, events: events, configuration: configuration,
        transport: NATSJetStreamTransport(client: client, configuration: configuration), logger: logger)
    bridge.setErrorHandler { error in emit("{\"bridgeError\":\"\(String(describing: error).prefix(200))\"}") }
    let handled = Counter()
    let handlerMs = Int(env["PROBE_HANDLER_MS"] ?? "0") ?? 0
    do {
        try bridge.listen(OrderPlaced.self, mode: .group("workers")) { _, _ in
            if handlerMs > 0 { try await Task.sleep(for: .milliseconds(handlerMs)) }
            handled.add()
        }
    } catch { emit("{\"listenError\":\"\(error)\"}") }
    let running = Task { try await bridge.run() }
    do {
        try await withTimeout(20) { try await bridge.waitUntilRunning() }
        emit("{\"running\":true,\"t\":\(elapsed())}")
    } catch {
        emit("{\"startError\":\"\(String(describing: error).prefix(300))\",\"t\":\(elapsed())}")
        emit("STATS \(stats())")
        if error is TimedOut {
            bridge.shutdown()
            do {
                try await withTimeout(10) { _ = try? await running.value }
                emit("{\"stoppedAfterStartTimeout\":true}")
            } catch { emit("{\"shutdownHang\":true}") }
        }
        return
    }
    var n = 0
    while elapsed() < seconds {
        n += 1
        let order = OrderPlaced(orderID: n, amount: 1.5)
        do {
            try await withTimeout(10) { try await bridge.publishAndWait(order) }
            emit("{\"acked\":\(n),\"t\":\(elapsed())}")
        } catch {
            emit("{\"publishError\":\"\(String(describing: error).prefix(200))\",\"t\":\(elapsed())}")
        }
        let s = bridge.statistics
        emit(
            "STATS t=\(elapsed()) handled=\(handled.value) exported=\(s.exported) acked=\(s.acknowledged) dup=\(s.duplicates) retries=\(s.publishRetries) pfail=\(s.publishFailures) received=\(s.received) bhandled=\(s.handled) dl=\(s.deadLettered) settleFail=\(s.settleFailures) \(stats())"
        )
        try? await Task.sleep(for: .milliseconds(300))
    }
    bridge.shutdown()
    do {
        try await withTimeout(15) { _ = try? await running.value }
        emit("{\"stopped\":true,\"t\":\(elapsed())}")
    } catch {
        emit("{\"shutdownHang\":true,\"t\":\(elapsed())}")
    }
}

switch mode {
case "bridge": await runBridge()
case "jsapi": await runJSAPI()
default: await runClient()
}
emit("EXIT t=\(elapsed())")
exit(0)
