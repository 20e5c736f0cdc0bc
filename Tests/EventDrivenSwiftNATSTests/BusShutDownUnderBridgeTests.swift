// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import Testing

@testable import EventDrivenSwiftNATS

/// A bus shut down while its bridge imports: a delivery the bus refuses, or discards unhandled,
/// is sent back without delay (`-NAK`) for another process, counted in `refusedByBus`, and the
/// bridge still stops. Before, `listen()`'s delivery, refused or discarded, was never settled
/// and the bridge's shutdown waited for it forever; `importEvents()` acknowledged an event no
/// handler had seen, refused or (in a batch the shutdown cut) discarded.
@Suite("X7: a bus shut down under its bridge", .serialized, .timeLimit(.minutes(2)))
struct BusShutDownUnderBridgeTests {
    static func bridge(_ server: NATSServerProcess, bus: EventBus) throws -> NATSBridge {
        var configuration = NATSBridgeConfiguration()
        configuration.storage = .memory
        configuration.consumers.fetchExpiry = .milliseconds(200)
        return try NATSBridge(
            bus: bus, events: try registry(), server: server.url, configuration: configuration, logger: quietLogger)
    }

    /// Starts a second worker of the group on a bus that runs and expects it to get the orders
    /// `expected` (in any order) within 5 s, long before the ack wait (30 s) would have given
    /// them back; then stops it and the producer.
    static func expectAnotherWorkerGets(
        _ expected: [Int], _ server: NATSServerProcess, producer: NATSBridge, producing: Task<Void, any Error>
    ) async throws {
        let other = try bridge(server, bus: EventBus(label: "other"))
        let deliveries = Collected<Int>()
        // Each delivery as order/delivery count, for the messages below.
        let seen = Collected<String>()
        try other.listen(OrderPlaced.self, mode: .group("workers")) { event, info in
            seen.append("\(event.orderID)/\(info.deliveryCount)")
            deliveries.append(event.orderID)
        }
        let otherRunning = Task { try await other.run() }
        try await other.waitUntilRunning()
        #expect(
            await poll(timeout: .seconds(60)) { Set(deliveries.values) == Set(expected) },
            "\(seen.values); \(other.statistics)")
        // Once each: one CI run under ThreadSanitizer saw [3, 3, 2] for [2, 3] (cause not found;
        // a +WPI after the -NAK, and a -NAK with our request still open, each reach the other
        // fetch once on nats-server 2.9, but a -NAK sent twice may reach it twice:
        // `sentBackPastOpenRequest`). JetStream delivers at least once.
        withKnownIssue("a sent-back message delivered twice", isIntermittent: true) {
            #expect(deliveries.values.sorted() == expected, "\(seen.values); \(other.statistics)")
        }
        other.shutdown()
        producer.shutdown()
        _ = await outcome(within: .seconds(5)) {
            try await otherRunning.value
            try await producing.value
        }
    }

    /// A worker whose bus is shut down after it started imports with `register`; one event is
    /// published. The worker must stop, having sent the event back, and a second worker of the
    /// group, on a bus that runs, must get it at once.
    func refusedDeliveryGoesBack(_ register: (NATSBridge) throws -> Void) async throws {
        try await withNATSServer { server in
            let bus = EventBus(label: "gone")
            let worker = try Self.bridge(server, bus: bus)
            try register(worker)
            let running = Task { try await worker.run() }
            try await worker.waitUntilRunning()
            await bus.shutdown()
            let producer = try Self.bridge(server, bus: EventBus(label: "producer"))
            let producing = Task { try await producer.run() }
            try await producer.waitUntilRunning()
            try await producer.publishAndWait(OrderPlaced(orderID: 7, customerID: 1, amount: 1))
            #expect(await poll(timeout: .seconds(60)) { worker.statistics.received == 1 }, "never fetched")

            worker.shutdown()
            let stopped = await outcome(within: .seconds(5)) { try await running.value }
            #expect("\(stopped)" == "returned", "the worker's shutdown \(stopped); \(worker.statistics)")
            let statistics = worker.statistics
            #expect(statistics.refusedByBus == 1, "\(statistics)")
            #expect(statistics.handled == 0 && statistics.deadLettered == 0 && statistics.settleFailures == 0)

            // Sent back without delay: another worker of the group gets it at once, long before
            // the ack wait (30 s) would have given it back. (nats-server 2.9 may count the
            // redelivery as the first: the count is not checked.)
            try await Self.expectAnotherWorkerGets([7], server, producer: producer, producing: producing)
        }
    }

    @Test("listen(): the refused delivery is sent back and the bridge stops")
    func listenDeliveryRefused() async throws {
        try await refusedDeliveryGoesBack { worker in
            try worker.listen(OrderPlaced.self, mode: .group("workers")) { _, _ in }
        }
    }

    @Test("listen(): deliveries an immediate bus shutdown discards are sent back and the bridge stops")
    func listenDeliveriesDiscarded() async throws {
        try await withNATSServer { server in
            let bus = EventBus(label: "cut")
            let worker = try Self.bridge(server, bus: bus)
            let started = Collected<Int>()
            // The first handler runs until the shutdown has removed the bridge's own listener, so
            // that the other deliveries, waiting for their turn, are discarded (another
            // listener's removal is no signal: the shutdown removes them in no set order).
            let bridgeListenerRemoved = { @Sendable in bus.subscriberCount(for: _BridgedDelivery<OrderPlaced>.self) == 0
            }
            try worker.listen(OrderPlaced.self, mode: .group("workers")) { event, _ in
                started.append(event.orderID)
                guard event.orderID == 1 else { return }
                _ = await poll(timeout: .seconds(10)) { bridgeListenerRemoved() }
            }
            // The deliveries dispatched on the bus: `received` counts one when the bridge takes it,
            // a hop before it dispatches it (a shutdown in between refuses it instead).
            let dispatched = Collected<Int>()
            let counting = bus.listen(_BridgedDelivery<OrderPlaced>.self, executeOn: .synchronous) { delivery, _ in
                dispatched.append(delivery.event.orderID)
            }
            let running = Task { try await worker.run() }
            try await worker.waitUntilRunning()
            let producer = try Self.bridge(server, bus: EventBus(label: "producer"))
            let producing = Task { try await producer.run() }
            try await producer.waitUntilRunning()
            for id in 1...3 { try await producer.publishAndWait(OrderPlaced(orderID: id, customerID: 1, amount: 1)) }
            #expect(await poll(timeout: .seconds(60)) { dispatched.values.count == 3 && started.values == [1] })
            counting.cancel()

            await bus.shutdown(immediately: true)
            #expect(bridgeListenerRemoved() && bus.statistics.discarded == 2, "\(bus.statistics)")
            worker.shutdown()
            let stopped = await outcome(within: .seconds(5)) { try await running.value }
            #expect("\(stopped)" == "returned", "the worker's shutdown \(stopped); \(worker.statistics)")
            let statistics = worker.statistics
            #expect(statistics.handled == 1 && statistics.refusedByBus == 2, "\(statistics)")

            try await Self.expectAnotherWorkerGets([2, 3], server, producer: producer, producing: producing)
        }
    }

    @Test("importEvents(): the refused event is sent back, not acknowledged")
    func importedEventRefused() async throws {
        try await refusedDeliveryGoesBack { worker in
            try worker.importEvents(OrderPlaced.self, mode: .group("workers"))
        }
    }

    @Test("importEvents(): a batch whose event an immediate bus shutdown discards is sent back, not acknowledged")
    func importedEventDiscarded() async throws {
        try await withNATSServer { server in
            let bus = EventBus(label: "cut")
            let worker = try Self.bridge(server, bus: bus)
            try worker.importEvents(OrderPlaced.self, mode: .group("workers"))
            let handled = Collected<Int>()
            let listener = bus.listen(OrderPlaced.self, executeOn: .listenerThread) { event, _ in
                handled.append(event.orderID)
            }
            // Registered after it, so it runs once the imported event waits in the listener's
            // mailbox: a route hands an event to its subscriptions in registration order. The
            // import dispatches from a queue of its own, after the message was counted received.
            let dispatched = Collected<Int>()
            bus.listen(OrderPlaced.self, executeOn: .synchronous) { event, _ in dispatched.append(event.orderID) }
            // A local event keeps the listener thread busy until the shutdown has removed the
            // imported event's listener, so that the imported event, waiting behind it, is
            // discarded (another listener's removal is no signal: the shutdown removes them in
            // no set order, and under ThreadSanitizer the imported event then ran).
            bus.listen(LocalBlocker.self, executeOn: .listenerThread) { _, _ in
                let deadline = ContinuousClock.now + .seconds(10)
                while listener.isActive && ContinuousClock.now < deadline {
                    Thread.sleep(forTimeInterval: 0.001)
                }
            }
            bus.queue(LocalBlocker())
            let running = Task { try await worker.run() }
            try await worker.waitUntilRunning()
            let producer = try Self.bridge(server, bus: EventBus(label: "producer"))
            let producing = Task { try await producer.run() }
            try await producer.waitUntilRunning()
            try await producer.publishAndWait(OrderPlaced(orderID: 1, customerID: 1, amount: 1))
            #expect(
                await poll(timeout: .seconds(60)) { worker.statistics.received == 1 && dispatched.values == [1] },
                "\(worker.statistics)")

            await bus.shutdown(immediately: true)
            #expect(!listener.isActive && bus.statistics.discarded == 1 && handled.values.isEmpty, "\(bus.statistics)")
            worker.shutdown()
            let stopped = await outcome(within: .seconds(5)) { try await running.value }
            #expect("\(stopped)" == "returned", "the worker's shutdown \(stopped); \(worker.statistics)")
            // Before, the batch was acknowledged after the bus's drain: the discarded event was
            // gone for every process.
            let statistics = worker.statistics
            #expect(statistics.refusedByBus == 1 && statistics.handled == 0, "\(statistics)")

            try await Self.expectAnotherWorkerGets([1], server, producer: producer, producing: producing)
        }
    }
}

/// A local event that keeps a receiver busy.
private struct LocalBlocker: Eventable {}
