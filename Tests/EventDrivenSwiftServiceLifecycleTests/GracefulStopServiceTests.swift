// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import EventDrivenSwiftServiceLifecycle
import Logging
import ServiceLifecycle
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

private struct OrderPlaced: Eventable { let id: Int }
private struct OrderCharged: Eventable { let id: Int }

/// Issue 29 items 1 and 2, with a real multi-hop pipeline in a real `ServiceGroup`: a
/// `.listenerThread` listener charges each order (slowly) and dispatches `OrderCharged`, which an
/// async listener stores.
@Suite("EventBusService: a graceful shutdown that finishes what it accepted (issue 29)")
struct GracefulStopServiceTests {
    @Test("bus before its producers: every accepted order is charged and stored, nothing refused")
    func everyAcceptedOrderStored() async throws {
        let pipeline = Pipeline(label: "service-pipeline", chargeMicroseconds: 1_000)
        let log = LogCapture()
        let producer = OrderProducer(bus: pipeline.bus, count: 300)
        let group = ServiceGroup(
            bus: EventBusService(bus: pipeline.bus, quietTimeout: .seconds(60), logger: log.logger),
            producers: [producer], logger: log.logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await producer.finishedDispatching()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        let statistics = pipeline.bus.statistics
        #expect(producer.accepted.value == 300)
        #expect(pipeline.charged.value == 300)
        #expect(pipeline.stored.value == 300, "every accepted order's follow-up was handled")
        #expect(statistics.rejected == 0)
        #expect(statistics.discarded == 0)
        #expect(log.contains(.info, "stopped gracefully"))
    }

    @Test("at the deadline the rest is cut: stored or discarded-and-counted, never refused, and the stop ends on time")
    func deadlineBoundsTheStop() async throws {
        let gate = Gate()
        let pipeline = Pipeline(label: "service-deadline", chargeMicroseconds: 10_000, gate: gate, gatedOrder: 50)
        let letters = pipeline.bus.deadLetters()
        let discardedLetters = Counter()
        let reader = Task { for await letter in letters where letter.reason == .discarded { discardedLetters.add() } }
        let log = LogCapture()
        let producer = OrderProducer(bus: pipeline.bus, count: 300)
        let group = ServiceGroup(
            bus: EventBusService(bus: pipeline.bus, quietTimeout: .milliseconds(200), logger: log.logger),
            producers: [producer], logger: log.logger)
        let clock = ContinuousClock()
        var elapsed = Duration.zero
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await producer.finishedDispatching()
            let start = clock.now
            await group.triggerGracefulShutdown()
            // However late a loaded machine makes the deadline, order 50 holds the bus busy
            // until the cut (which removes the bus's subscriptions) has come.
            #expect(await eventually { pipeline.bus.subscriberCount(for: OrderPlaced.self) == 0 })
            gate.open()
            try await tasks.waitForAll()
            elapsed = clock.now - start
        }
        await reader.value
        let statistics = pipeline.bus.statistics
        let accepted = producer.accepted.value
        print(
            "[deadlineBoundsTheStop] \(pipeline.charged.value) charged, \(pipeline.stored.value) stored, "
                + "\(statistics.discarded) discarded, \(statistics.rejected) rejected; the stop took \(elapsed)")
        #expect(accepted == 300)
        #expect(statistics.rejected == 0, "no follow-up of a charged order was refused")
        #expect(pipeline.stored.value < accepted, "300 × 10 ms cannot be charged in 200 ms")
        #expect(statistics.discarded == accepted - pipeline.stored.value, "every order not stored is counted")
        #expect(discardedLetters.value == statistics.discarded, "and dead-lettered")
        #expect(statistics.delivered == pipeline.charged.value + pipeline.stored.value)
        // Not a timed assertion (a loaded machine stretches any time): the stop did not run the
        // rest, 300 × 10 ms of charging, which is what made it outlast its deadline before.
        #expect(pipeline.charged.value <= 51, "the orders left at the deadline were not charged (\(elapsed))")
        #expect(log.contains(.warning, "not quiet by the deadline"))
    }

    @Test("bus after its producers (the wrong order): the refusals are counted and a warning says what to do")
    func wrongOrderIsVisible() async throws {
        let log = LogCapture()
        let bus = EventBus(label: "service-wrong-order-bus", logger: log.logger)
        let gate = Gate()
        // The first order's charge holds the bus busy until the producer has been refused.
        let busPipeline = Pipeline(bus: bus, chargeMicroseconds: 1_000, gate: gate, gatedOrder: 0)
        let producer = PacedProducer(bus: bus)
        let group = ServiceGroup(
            services: [producer, EventBusService(bus: bus, quietTimeout: .seconds(60), logger: log.logger)],
            logger: log.logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(await eventually { producer.accepted.value >= 1 })
            await group.triggerGracefulShutdown()
            #expect(await eventually { bus.statistics.rejectedWhileStopping > 0 })
            gate.open()
            try await tasks.waitForAll()
        }
        let statistics = bus.statistics
        #expect(statistics.rejectedWhileStopping > 0, "the producer kept dispatching while the bus stopped")
        #expect(log.contains(.warning, "list EventBusService"))
        #expect(busPipeline.stored.value == producer.accepted.value, "what the bus accepted was still finished")
    }
}

/// The order pipeline: a slow charge on the listener thread, then an async store.
private struct Pipeline: Sendable {
    let bus: EventBus
    let charged = Counter()
    let stored = Counter()

    init(label: String, chargeMicroseconds: UInt32, gate: Gate? = nil, gatedOrder: Int = -1) {
        self.init(
            bus: EventBus(label: label), chargeMicroseconds: chargeMicroseconds, gate: gate, gatedOrder: gatedOrder)
    }

    /// `gatedOrder`'s charge also waits for `gate`, when the charges get that far.
    init(bus: EventBus, chargeMicroseconds: UInt32, gate: Gate? = nil, gatedOrder: Int = -1) {
        self.bus = bus
        let charged = charged
        let stored = stored
        bus.listen(OrderPlaced.self, executeOn: .listenerThread) { order, _ in
            if order.id == gatedOrder { gate?.wait() }
            usleep(chargeMicroseconds)  // the charge's work
            charged.add()
            bus.queue(OrderCharged(id: order.id))
        }
        bus.listenAsync(OrderCharged.self) { _ in stored.add() }
    }
}

/// Dispatches `count` orders at once, then waits for the group's graceful shutdown.
private final class OrderProducer: Service, Sendable {
    let bus: EventBus
    let count: Int
    let accepted = Counter()
    private let done: AsyncStream<Void>
    private let doneContinuation: AsyncStream<Void>.Continuation

    init(bus: EventBus, count: Int) {
        self.bus = bus
        self.count = count
        (done, doneContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    func run() async throws {
        for id in 0..<count {
            do {
                try bus.tryDispatch(OrderPlaced(id: id))
                accepted.add()
            } catch {}
        }
        doneContinuation.yield()
        try? await gracefulShutdown()
    }

    func finishedDispatching() async {
        for await _ in done { return }
    }
}

/// Dispatches an order every millisecond until the group's graceful shutdown reaches it.
private final class PacedProducer: Service, Sendable {
    let bus: EventBus
    let accepted = Counter()

    init(bus: EventBus) { self.bus = bus }

    func run() async throws {
        var id = 0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                try bus.tryDispatch(OrderPlaced(id: id))
                accepted.add()
            } catch {}
            id += 1
            try? await Task.sleep(for: .milliseconds(1))  // the pace of requests, not a wait for anything
        }
    }
}

/// Polls `condition` until it holds or a minute has passed (a wait with a deadline, not a sleep).
private func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

/// Holds one handler until the test opens it; opening before anyone waits lets the waiter through.
private final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func wait() { semaphore.wait() }
    func open() { semaphore.signal() }
}

/// A count shared with handlers on other threads.
private final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Keeps what a logger is given.
private final class LogCapture: Sendable {
    private let storage = LockedValue<[(Logger.Level, String)]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(capture: self) }
    }

    func contains(_ level: Logger.Level, _ text: String) -> Bool {
        storage.withLock { $0.contains { $0.0 == level && $0.1.contains(text) } }
    }

    fileprivate func append(_ level: Logger.Level, _ text: String) {
        storage.withLock { $0.append((level, text)) }
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        func log(event: LogEvent) { capture.append(event.level, "\(event.message)") }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
    }
}
