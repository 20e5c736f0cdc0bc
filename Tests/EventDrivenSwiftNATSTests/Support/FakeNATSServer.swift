// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A pretend NATS server on a free loopback port, for what a real one will not do on demand: it
/// sends `INFO`, answers the handshake's `PING`, answers later `PING`s only on the connections
/// `answersPings` picks (numbered from 1), and records every line each connection sent.
///
/// Only connections whose `CONNECT` carries `clientName` count: the others are closed at once and
/// not recorded. A port this server was given may have been another test's server a moment ago,
/// and that test's client may still be reconnecting to it.
final class FakeNATSServer: Sendable {
    struct Connection: Sendable {
        var lines: [String] = []
        var isClosed = false
        var pings: Int { lines.count { $0 == "PING" } }
    }

    let port: Int
    private let log: Log
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup

    /// The name to give the client under test (`NATSClientConfiguration.name`).
    let clientName = "fake-server-client-\(UInt64.random(in: 0...UInt64.max))"

    init(answersPings: @escaping @Sendable (_ connection: Int) -> Bool) async throws {
        let clientName = self.clientName
        let log = Log()
        // A loop of its own, so the server answers even while the client's loops are busy.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        Handler(log: log, clientName: clientName, answersPings: answersPings))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        self.log = log
        self.group = group
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    var url: String { "nats://127.0.0.1:\(port)" }

    /// What each connection sent so far, in the order they arrived.
    var connections: [Connection] { log.connections }

    /// Waits until `condition` holds for the connections, or `timeout` has passed; returns
    /// whether it holds. Woken by every recorded line, not by polling.
    func wait(timeout: Duration, until condition: @escaping @Sendable ([Connection]) -> Bool) async -> Bool {
        await log.wait(timeout: timeout, on: group.next(), until: condition)
    }

    func shutdown() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// The connections' records and the tests waiting on them.
    private final class Log: Sendable {
        private struct Waiter {
            var condition: @Sendable ([Connection]) -> Bool
            var continuation: CheckedContinuation<Bool, Never>
        }

        private struct State {
            var connections: [Connection] = []
            var waiters: [Int: Waiter] = [:]
            var nextWaiter = 0
        }

        private let state = NIOLockedValueBox(State())

        var connections: [Connection] { state.withLockedValue { $0.connections } }

        /// A new connection's number.
        func opened() -> Int {
            change { state in
                state.connections.append(Connection())
                return state.connections.count
            }
        }

        func received(_ line: String, on connection: Int) {
            change { $0.connections[connection - 1].lines.append(line) }
        }

        func closed(_ connection: Int) {
            change { $0.connections[connection - 1].isClosed = true }
        }

        func wait(
            timeout: Duration, on loop: any EventLoop, until condition: @escaping @Sendable ([Connection]) -> Bool
        ) async -> Bool {
            await withCheckedContinuation { continuation in
                let id = state.withLockedValue { state -> Int? in
                    if condition(state.connections) { return nil }
                    defer { state.nextWaiter += 1 }
                    state.waiters[state.nextWaiter] = Waiter(condition: condition, continuation: continuation)
                    return state.nextWaiter
                }
                guard let id else {
                    continuation.resume(returning: true)
                    return
                }
                loop.scheduleTask(in: TimeAmount(timeout)) {
                    let expired = self.state.withLockedValue { $0.waiters.removeValue(forKey: id) }
                    expired?.continuation.resume(returning: false)
                }
            }
        }

        /// Applies `body`, then wakes the waiters whose condition now holds.
        private func change<R>(_ body: (inout State) -> R) -> R {
            let (result, woken) = state.withLockedValue { state in
                let result = body(&state)
                let ids = state.waiters.filter { $0.value.condition(state.connections) }.map(\.key)
                return (result, ids.compactMap { state.waiters.removeValue(forKey: $0) })
            }
            for waiter in woken { waiter.continuation.resume(returning: true) }
            return result
        }
    }

    /// One connection: `INFO` first, then a `PONG` for the handshake's `PING` and for later ones
    /// when the server answers this connection.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let log: Log
        private let connectMark: String
        private let answersPings: @Sendable (Int) -> Bool
        /// The connection's number once its `CONNECT` named the client under test.
        private var number = 0
        private var pings = 0
        private var buffered = ""

        init(log: Log, clientName: String, answersPings: @escaping @Sendable (Int) -> Bool) {
            self.log = log
            self.connectMark = "\"name\":\"\(clientName)\""
            self.answersPings = answersPings
        }

        func channelActive(context: ChannelHandlerContext) {
            send(
                "INFO {\"server_id\":\"fake\",\"version\":\"2.9.0\",\"proto\":1,\"headers\":true,"
                    + "\"max_payload\":1048576}\r\n", context: context)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            buffered += bytes.readString(length: bytes.readableBytes) ?? ""
            while let end = buffered.range(of: "\r\n") {
                let line = String(buffered[..<end.lowerBound])
                buffered.removeSubrange(..<end.upperBound)
                if number == 0 {
                    guard line.hasPrefix("CONNECT "), line.contains(connectMark) else {
                        context.close(promise: nil)
                        return
                    }
                    number = log.opened()
                }
                if line == "PING" {
                    pings += 1
                    if pings == 1 || answersPings(number) { send("PONG\r\n", context: context) }
                }
                log.received(line, on: number)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            if number > 0 { log.closed(number) }
            context.fireChannelInactive()
        }

        private func send(_ text: String, context: ChannelHandlerContext) {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text)), promise: nil)
        }
    }
}
