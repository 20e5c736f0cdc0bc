// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import EventDrivenSwiftNATS
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

var quietLogger: Logger {
    var logger = Logger(label: "NATSBench")
    logger.logLevel = .error
    return logger
}

func makeBridge(server: String, storage: String) throws -> (NATSBridge, EventBus) {
    let events = NATSEventRegistry()
    try events.register(BenchOrder.self, name: "bench.order", version: 1)
    var configuration = NATSBridgeConfiguration()
    configuration.storage = storage == "memory" ? .memory : .file
    configuration.streamName = "EDS"
    // Given several URLs (a cluster), the stream is replicated on three servers.
    configuration.replicas = server.contains(",") ? 3 : 1
    let bus = EventBus(label: "bench")
    return (
        try NATSBridge(bus: bus, events: events, server: server, configuration: configuration, logger: quietLogger), bus
    )
}

/// `producer`: exports `count` events through a local bus with asynchronous publish acks;
/// `--pace-us` sends one event at a time, that many µs apart (latency runs).
func runProducer(server: String, storage: String, count: Int, paceMicroseconds: Int) async throws {
    let (bridge, bus) = try makeBridge(server: server, storage: storage)
    try bridge.export(BenchOrder.self)
    let running = Task { try await bridge.run() }
    try await bridge.waitUntilRunning()
    let started = monotonicNanoseconds()
    for index in 1...count {
        bus.queue(BenchOrder(orderID: index, customerID: index % 97, amount: 12.5, sentAt: monotonicNanoseconds()))
        if paceMicroseconds > 0 {
            try await Task.sleep(for: .microseconds(paceMicroseconds))
        } else if index % 256 == 0 {
            await bridge.waitForExports(below: 8_192)
        }
    }
    await bus.drain()
    await bridge.waitForExports()
    let seconds = Double(monotonicNanoseconds() - started) / 1e9
    let statistics = bridge.statistics
    emit(
        "{\"role\":\"producer\",\"count\":\(count),\"seconds\":\(seconds),\"acknowledged\":\(statistics.acknowledged),"
            + "\"failures\":\(statistics.publishFailures)}")
    bridge.shutdown()
    try await running.value
}

/// `worker`: handles events in the group `bench` until it has `count`, then reports its rate
/// (from its first event to its last) and the end-to-end latencies.
func runWorker(server: String, storage: String, count: Int) async throws {
    let (bridge, _) = try makeBridge(server: server, storage: storage)
    struct Tally {
        var handled = 0
        var first: UInt64 = 0
        var last: UInt64 = 0
        var latencies: [UInt64] = []
    }
    let tally = NIOLockedValueBox(Tally())
    let done = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(nil)
    try bridge.listen(BenchOrder.self, mode: .group("bench")) { order, _ in
        let now = monotonicNanoseconds()
        let finished = tally.withLockedValue { tally -> Bool in
            if tally.handled == 0 { tally.first = now }
            tally.handled += 1
            tally.last = now
            tally.latencies.append(now &- order.sentAt)
            return tally.handled == count
        }
        if finished { done.withLockedValue { $0 }?.resume() }
    }
    let running = Task { try await bridge.run() }
    try await bridge.waitUntilRunning()
    emit("{\"role\":\"worker\",\"ready\":true}")
    await withCheckedContinuation { continuation in
        let already = done.withLockedValue { box -> Bool in
            if tally.withLockedValue({ $0.handled >= count }) { return true }
            box = continuation
            return false
        }
        if already { continuation.resume() }
    }
    let result = tally.withLockedValue { $0 }
    let seconds = Double(result.last - result.first) / 1e9
    emit(
        "{\"role\":\"worker\",\"count\":\(result.handled),\"seconds\":\(seconds),"
            + "\"p50\":\(percentile(result.latencies, 50)),\"p99\":\(percentile(result.latencies, 99))}")
    bridge.shutdown()
    try await running.value
}
