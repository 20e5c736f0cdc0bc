// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import CoreMetrics
import Dispatch
import EventDrivenSwift
import EventDrivenSwiftObservability
import Foundation
import MetricsTestKit
import Synchronization
import Testing

private struct Order: Eventable {
    let id: Int
}

private struct Unwanted: Eventable {}

private struct Refused: Error {}

/// Holds its receiver busy until opened.
private final class Gate: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    func block() {
        entered.signal()
        released.wait()
    }
    func waitUntilEntered() { entered.wait() }
    func open() { released.signal() }
}

@Suite("Metrics through swift-metrics (SPEC M1)")
struct MetricsTests {
    @Test("M1: dispatches, deliveries by outcome, undelivered and rejected events are counted with their dimensions")
    func countsWithDimensions() async throws {
        let metrics = TestMetrics()
        let bus = EventBus(label: "orders")
        bus.addInterceptor(EventBusMetrics(factory: metrics))
        bus.listen(Order.self, executeOn: .listenerThread) { (order: Order, _) throws in
            if order.id == 2 { throw Refused() }
        }
        bus.listen(Order.self, executeOn: .synchronous, interestedIn: .custom { (order: Order, _) in order.id != 3 }) {
            _, _ in
        }
        for id in 1...3 { bus.queue(Order(id: id)) }
        bus.queue(Unwanted())
        await bus.drain()
        await bus.shutdown()
        bus.queue(Order(id: 4))
        let event = String(reflecting: Order.self)
        #expect(
            try metrics.expectCounter("eventbus.events.dispatched", [("bus", "orders"), ("event", event)]).totalValue
                == 3)
        func deliveries(_ outcome: String) throws -> Int64 {
            try metrics.expectCounter(
                "eventbus.deliveries", [("bus", "orders"), ("event", event), ("outcome", outcome)]
            ).totalValue
        }
        #expect(try deliveries("delivered") == 4)
        #expect(try deliveries("failed") == 1)
        #expect(try deliveries("filtered") == 1)
        #expect(
            try metrics.expectCounter(
                "eventbus.events.undelivered", [("bus", "orders"), ("event", String(reflecting: Unwanted.self))]
            ).totalValue == 1)
        #expect(try metrics.expectCounter("eventbus.events.rejected", [("bus", "orders")]).totalValue == 1)
        let timer = try metrics.expectTimer(
            "eventbus.handler.duration", [("bus", "orders"), ("event", event), ("receiver", "listener_thread")])
        #expect(timer.values.count == 3)
        let synchronous = try metrics.expectTimer(
            "eventbus.handler.duration", [("bus", "orders"), ("event", event), ("receiver", "synchronous")])
        #expect(synchronous.values.count == 2)
    }

    @Test("M1: each metric is made once per dimension set")
    func metricsMadeOnce() async throws {
        let metrics = TestMetrics()
        let bus = EventBus(label: "once")
        bus.addInterceptor(EventBusMetrics(factory: metrics))
        bus.listen(Order.self, executeOn: .synchronous) { _, _ in }
        for id in 0..<100 { bus.queue(Order(id: id)) }
        #expect(metrics.counters(label: "eventbus.events.dispatched").count == 1)
        #expect(metrics.counters(label: "eventbus.deliveries").count == 1)
        #expect(metrics.counterTotal(label: "eventbus.deliveries") == 100)
    }

    @Test("M1: the mailbox depth gauge shows what waits, per kind of receiver, and falls back to zero")
    func mailboxDepth() async throws {
        let metrics = TestMetrics()
        let (bus, interceptor, gate) = busWithWaitingOrders("depth", factory: metrics, waiting: 5)
        interceptor.sampleMailboxDepths()
        let gauge = try metrics.expectGauge(
            "eventbus.mailbox.depth", [("bus", "depth"), ("receiver", "listener_thread")])
        // The five waiting, and the one running.
        #expect(gauge.lastValue == 6)
        gate.open()
        await bus.drain()
        interceptor.sampleMailboxDepths()
        #expect(gauge.lastValue == 0)
    }

    @Test(
        "M1: a depth sampling interval below 1 ms is 1 ms, one beyond 292 years is Int64.max nanoseconds; either samples without a trap"
    )
    func depthSamplingIntervalIsKeptInRange() async throws {
        let metrics = TestMetrics()
        let shortest = EventBusMetrics(factory: metrics, depthSamplingInterval: .seconds(-1))
        let longest = EventBusMetrics(factory: metrics, depthSamplingInterval: .seconds(Int64.max))
        #expect(shortest.depthSamplingInterval == .milliseconds(1))
        #expect(
            EventBusMetrics(factory: metrics, depthSamplingInterval: .zero).depthSamplingInterval == .milliseconds(1))
        #expect(longest.depthSamplingInterval == .nanoseconds(Int64.max))
        #expect(EventBusMetrics(factory: metrics).depthSamplingInterval == .seconds(1))
        // Sampled at once when attached, then after the interval: `Task.sleep` trapped on an
        // interval of Int64.max seconds.
        for (label, interceptor) in [("shortest", shortest), ("longest", longest)] {
            let (bus, gate) = busWithWaitingOrders(label, interceptor: interceptor, waiting: 1)
            interceptor.sampleMailboxDepths()
            let gauge = try metrics.expectGauge(
                "eventbus.mailbox.depth", [("bus", label), ("receiver", "listener_thread")])
            #expect(gauge.lastValue == 2)
            gate.open()
            await bus.drain()
            await bus.shutdown()
        }
    }

    @Test("M1: metrics are per bus: a bus without the interceptor reports nothing")
    func optIn() async {
        let metrics = TestMetrics()
        let measured = EventBus(label: "measured")
        measured.addInterceptor(EventBusMetrics(factory: metrics))
        let quiet = EventBus(label: "quiet")
        quiet.listen(Order.self, executeOn: .synchronous) { _, _ in }
        quiet.queue(Order(id: 1))
        #expect(metrics.counters.isEmpty)
    }
}

/// A factory that forwards to `TestMetrics` and, while making a recorder (a gauge), runs code
/// the test sets: the user's code that the bus's metrics must not run under a lock of theirs.
private final class ReentrantFactory: MetricsFactory {
    let base = TestMetrics()
    let whileMakingRecorder = LockedValue<(@Sendable () -> Void)?>(nil)

    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler {
        base.makeCounter(label: label, dimensions: dimensions)
    }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> FloatingPointCounterHandler {
        base.makeFloatingPointCounter(label: label, dimensions: dimensions)
    }
    func makeMeter(label: String, dimensions: [(String, String)]) -> MeterHandler {
        base.makeMeter(label: label, dimensions: dimensions)
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler {
        // Taken out first, so that it runs once.
        let hook = whileMakingRecorder.withLock { hook in
            defer { hook = nil }
            return hook
        }
        hook?()
        return base.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler {
        base.makeTimer(label: label, dimensions: dimensions)
    }
    func destroyCounter(_ handler: CounterHandler) { base.destroyCounter(handler) }
    func destroyMeter(_ handler: MeterHandler) { base.destroyMeter(handler) }
    func destroyFloatingPointCounter(_ handler: FloatingPointCounterHandler) {
        base.destroyFloatingPointCounter(handler)
    }
    func destroyRecorder(_ handler: RecorderHandler) { base.destroyRecorder(handler) }
    func destroyTimer(_ handler: TimerHandler) { base.destroyTimer(handler) }
}

@Suite("Metrics through swift-metrics: the factory is the user's code (SPEC M1)")
struct MetricsFactoryReentryTests {
    @Test(
        "M1: a factory that uses the metrics while it makes one is not run under their lock",
        .timeLimit(.minutes(1)))
    func factoryRunsOutsideTheLock() async throws {
        let factory = ReentrantFactory()
        let interceptor = EventBusMetrics(factory: factory, depthSamplingInterval: .seconds(3_600))
        let reentered = LockedValue(false)
        // Making the first depth gauge samples the depths again, from inside the factory. Set
        // before the bus exists: the interceptor's own first sample may be the one that makes it.
        factory.whileMakingRecorder.withLock {
            $0 = {
                interceptor.sampleMailboxDepths()
                reentered.withLock { $0 = true }
            }
        }
        let (bus, gate) = busWithWaitingOrders("reentry", interceptor: interceptor, waiting: 3)
        interceptor.sampleMailboxDepths()
        #expect(reentered.withLock { $0 }, "the factory was asked for a gauge and sampled from inside")
        let gauge = try factory.base.expectGauge(
            "eventbus.mailbox.depth", [("bus", "reentry"), ("receiver", "listener_thread")])
        // The three waiting, and the one running.
        #expect(gauge.lastValue == 4)
        gate.open()
        await bus.drain()
        await bus.shutdown()
    }
}

/// A bus with `EventBusMetrics` (which samples the depths once when attached, then only when
/// asked) and a listener-thread listener held inside its first order by the returned gate, with
/// `waiting` more orders queued behind it.
private func busWithWaitingOrders(
    _ label: String, factory: any MetricsFactory, waiting: Int
) -> (EventBus, EventBusMetrics, Gate) {
    let interceptor = EventBusMetrics(factory: factory, depthSamplingInterval: .seconds(3_600))
    let (bus, gate) = busWithWaitingOrders(label, interceptor: interceptor, waiting: waiting)
    return (bus, interceptor, gate)
}

/// A bus measured by `interceptor` whose listener-thread listener is blocked in its first order
/// while `waiting` more wait in its mailbox.
private func busWithWaitingOrders(
    _ label: String, interceptor: EventBusMetrics, waiting: Int
) -> (EventBus, Gate) {
    let bus = EventBus(label: label)
    bus.addInterceptor(interceptor)
    let gate = Gate()
    bus.listen(Order.self, executeOn: .listenerThread) { order, _ in if order.id == 0 { gate.block() } }
    bus.queue(Order(id: 0))
    gate.waitUntilEntered()
    for id in 1...waiting { bus.queue(Order(id: id)) }
    return (bus, gate)
}

/// A factory whose first `eventbus.events.dispatched` counter takes as long as the test wants:
/// it counts every counter it makes, per label.
private final class SlowFactory: MetricsFactory {
    let base = TestMetrics()
    let made = LockedValue<[String: Int]>([:])
    let firstEntered = DispatchSemaphore(value: 0)
    let secondEntered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler {
        if label == "eventbus.events.dispatched" {
            let count = made.withLock { made in
                made[label, default: 0] += 1
                return made[label, default: 0]
            }
            if count == 1 {
                firstEntered.signal()
                release.wait()
            } else {
                secondEntered.signal()
            }
        }
        return base.makeCounter(label: label, dimensions: dimensions)
    }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> FloatingPointCounterHandler {
        base.makeFloatingPointCounter(label: label, dimensions: dimensions)
    }
    func makeMeter(label: String, dimensions: [(String, String)]) -> MeterHandler {
        base.makeMeter(label: label, dimensions: dimensions)
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler {
        base.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler {
        base.makeTimer(label: label, dimensions: dimensions)
    }
    func destroyCounter(_ handler: CounterHandler) { base.destroyCounter(handler) }
    func destroyMeter(_ handler: MeterHandler) { base.destroyMeter(handler) }
    func destroyFloatingPointCounter(_ handler: FloatingPointCounterHandler) {
        base.destroyFloatingPointCounter(handler)
    }
    func destroyRecorder(_ handler: RecorderHandler) { base.destroyRecorder(handler) }
    func destroyTimer(_ handler: TimerHandler) { base.destroyTimer(handler) }
}

@Suite("Metrics: each made once (issue 26, item 10)")
struct MetricsMadeOnceTests {
    @Test("four threads dispatching a new type while the factory is slow make its counter once")
    func slowFactoryMakesOnce() throws {
        let factory = SlowFactory()
        let bus = EventBus(label: "metrics.once")
        bus.addInterceptor(EventBusMetrics(factory: factory))
        let done = DispatchSemaphore(value: 0)
        // Plain threads: a dispatch thread blocked in the factory must not starve the others.
        Thread {
            Order(id: 0).queue(on: bus)
            done.signal()
        }.start()
        factory.firstEntered.wait()
        for id in 1...3 {
            Thread {
                Order(id: id).queue(on: bus)
                done.signal()
            }.start()
        }
        // While the first counter is being made, another make would come at once; give it
        // half a second to show itself (a bound on the wait, not a synchronization).
        let second = factory.secondEntered.wait(timeout: .now() + .milliseconds(500))
        factory.release.signal()
        for _ in 0..<4 { done.wait() }
        #expect(second == .timedOut)
        #expect(factory.made.withLock { $0["eventbus.events.dispatched"] } == 1)
        let counter = try factory.base.expectCounter(
            "eventbus.events.dispatched", [("bus", "metrics.once"), ("event", String(reflecting: Order.self))])
        #expect(counter.totalValue == 4)
    }
}
