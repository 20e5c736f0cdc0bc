// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import EventDrivenSwiftNATS
import Foundation
import Logging
import ServiceLifecycle

/// Writes one line to stdout at once (no buffering: a reader sees it immediately).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func bridgeConfiguration(_ options: Options) -> NATSBridgeConfiguration {
    var configuration = NATSBridgeConfiguration()
    configuration.prefix = options.string("prefix", "eds")
    configuration.streamName = options.string("stream", "EDS")
    configuration.storage = options.string("storage", "file") == "memory" ? .memory : .file
    configuration.consumers.maxDeliver = options.int("max-deliver", 5)
    configuration.consumers.ackWait = .milliseconds(options.int("ack-wait-ms", 30_000))
    configuration.consumers.maxHeld = options.int("max-held", configuration.consumers.maxHeld)
    configuration.consumers.fetchBatch = min(configuration.consumers.fetchBatch, configuration.consumers.maxHeld)
    let retryDelay = options.int("retry-delay-ms", 1_000)
    configuration.consumers.retryDelays = (0..<max(1, configuration.consumers.maxDeliver)).map {
        .milliseconds(retryDelay << min($0, 16))
    }
    return configuration
}

func produce(_ options: Options, bridge: NATSBridge, bus: EventBus) async throws {
    let count = options.int("count", 1_000)
    let first = options.int("first-id", 1)
    let window = options.int("window", 4_096)
    try bridge.export(OrderPlaced.self)
    let started = ContinuousClock.now
    for orderID in first..<(first + count) {
        bus.queue(OrderPlaced(orderID: orderID, customerID: orderID % 97, amount: Double(orderID % 1_000) + 0.5))
        if orderID % 256 == 0 { await bridge.waitForExports(below: window) }
    }
    await bus.drain()
    await bridge.waitForExports()
    let seconds = (ContinuousClock.now - started) / .seconds(1)
    let statistics = bridge.statistics
    emit(
        "{\"produced\":\(count),\"acknowledged\":\(statistics.acknowledged),\"duplicates\":\(statistics.duplicates),"
            + "\"unacknowledged\":\(statistics.publishFailures),\"retries\":\(statistics.publishRetries),"
            + "\"seconds\":\(seconds)}")
}

func work(_ options: Options, bridge: NATSBridge) throws {
    let pid = ProcessInfo.processInfo.processIdentifier
    let mode: NATSImportMode =
        options.flags.contains("broadcast") ? .broadcast : .group(options.string("group", "workers"))
    let failAlways = options.flags.contains("fail")
    let failFirst = options.int("fail-first", 0)
    let handleTime = options.int("handle-ms", 0)
    let started = ContinuousClock.now
    try bridge.listen(OrderPlaced.self, mode: mode) { order, delivery in
        if handleTime > 0 { try await Task.sleep(for: .milliseconds(handleTime)) }
        if failAlways || delivery.deliveryCount <= failFirst {
            let atMs = (ContinuousClock.now - started) / .milliseconds(1)
            emit(
                "{\"failed\":\"\(delivery.messageID)\",\"orderID\":\(order.orderID),"
                    + "\"delivery\":\(delivery.deliveryCount),\"pid\":\(pid),\"atMs\":\(atMs)}")
            throw DemoFailure(orderID: order.orderID)
        }
        emit("{\"msgId\":\"\(delivery.messageID)\",\"orderID\":\(order.orderID),\"pid\":\(pid)}")
    }
    let letters = bridge.deadLetters()
    Task {
        for await letter in letters {
            let reason = letter.reason.replacingOccurrences(of: "\"", with: "'")
            emit("{\"deadLetter\":\"\(letter.messageID ?? "")\",\"reason\":\"\(reason)\",\"pid\":\(pid)}")
        }
    }
    Task {
        try await bridge.waitUntilRunning()
        emit("{\"ready\":true,\"pid\":\(pid)}")
    }
}

struct DemoFailure: Error, CustomStringConvertible {
    var orderID: Int
    var description: String { "the demo handler failed on order \(orderID) (as asked)" }
}

/// Ends the program with one line on stderr and exit status 1: every error the demo meets
/// after reading its command line ends here (a bad command line ends the same way), never in a trap.
func fail(_ what: String, _ error: any Error) -> Never {
    FileHandle.standardError.write(Data("NATSBridgeDemo: \(what): \(error)\n".utf8))
    exit(1)
}

/// The client configuration: the servers (credentials in their URLs stay with them), and
/// `--creds`, `--nkey-seed-file`, `--tls-ca`, `--tls-cert`, `--tls-key`, `--tls-first`.
func clientConfiguration(_ options: Options) throws -> NATSClientConfiguration {
    var configuration = try NATSClientConfiguration(server: options.string("server", "nats://127.0.0.1:4222"))
    if let path = options.values["creds"] {
        configuration.authentication = try .credentialsFile(path)
    } else if let path = options.values["nkey-seed-file"] {
        guard let seed = FileManager.default.contents(atPath: path) else {
            throw NATSError.invalidArgument("cannot read the NKEY seed file \(path)")
        }
        configuration.authentication = .nkey(seed: String(decoding: seed, as: UTF8.self))
    }
    let ca = options.values["tls-ca"]
    let certificate = options.values["tls-cert"]
    let key = options.values["tls-key"]
    if ca != nil || certificate != nil || key != nil {
        configuration.tls = try NATSClientConfiguration.tlsConfiguration(
            certificateChainFile: certificate, privateKeyFile: key, trustRootsFile: ca)
    }
    configuration.tlsFirst = options.flags.contains("tls-first")
    return configuration
}

let arguments = Array(CommandLine.arguments.dropFirst())
if let first = arguments.first, ["--help", "-h", "help"].contains(first) {
    emit(Options.usage)
    exit(0)
}
let options: Options
do {
    options = try Options(arguments)
} catch {
    // A bad command line is an error like any other: one line, exit status 1.
    FileHandle.standardError.write(Data("NATSBridgeDemo: \(error) (NATSBridgeDemo --help shows the usage)\n".utf8))
    exit(1)
}
var logger = Logger(label: "NATSBridgeDemo")
logger.logLevel = .critical
let bus = EventBus(label: "NATSBridgeDemo")
let events = NATSEventRegistry()
let bridge: NATSBridge
do {
    try events.register(OrderPlaced.self, name: "orders.placed", version: 1)
    let configuration = bridgeConfiguration(options)
    let client = NATSClient(configuration: try clientConfiguration(options), logger: logger)
    bridge = NATSBridge(
        bus: bus, events: events, configuration: configuration,
        transport: NATSJetStreamTransport(client: client, configuration: configuration), logger: logger)
} catch {
    fail("cannot set up", error)
}

if options.command == "produce" {
    let running = Task { try await bridge.run() }
    do {
        try await bridge.waitUntilRunning()
        try await produce(options, bridge: bridge, bus: bus)
        bridge.shutdown()
        try await running.value
    } catch {
        fail("produce failed", error)
    }
} else {
    do {
        try work(options, bridge: bridge)
    } catch {
        fail("cannot set up", error)
    }
    let group = ServiceGroup(
        configuration: .init(services: [bridge], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    do {
        try await group.run()
    } catch {
        fail("work failed", error)
    }
}
