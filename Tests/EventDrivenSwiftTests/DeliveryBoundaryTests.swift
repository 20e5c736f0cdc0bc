// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization
import Testing

@testable import EventDrivenSwift

/// The delivery boundary (issues 14 and 24): every kind of receiver is a `_DeliveryTarget`, and a
/// route hands each event to each subscription's target through its one `deliver`, without
/// knowing the target's kind.
@Suite("Issues 14 and 24: one delivery boundary")
struct DeliveryBoundaryTests {
    struct Ping: Eventable { let value: Int }

    /// Counts the deliveries of every handler registered through it.
    final class Arrivals: Sendable {
        private let count = LockedValue(0)

        func handler() -> @Sendable (Ping, EventMetadata) -> Void {
            { _, _ in self.count.withLock { $0 += 1 } }
        }

        var value: Int { count.withLock { $0 } }
    }

    /// A receiver kind of the test's own: counts the deliveries the route hands it.
    final class CountingTarget: _DeliveryTarget {
        private let count = LockedValue(0)

        func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
            count.withLock { $0 += 1 }
        }

        var receiverKind: EventReceiverKind { .synchronous }

        var value: Int { count.withLock { $0 } }
    }

    @Test(
        "every target of a route gets each event once, through its deliver, whatever the mix of kinds",
        arguments: [
            [DeliveryContext.listenerThread],
            [.listenerThread, .listenerThread, .requesterThread],
            [.synchronous],
            [.synchronous, .synchronous],
            [.taskThread],
            [.listenerThread, .synchronous],
            [.synchronous, .taskThread, .listenerThread],
        ])
    func everyTargetOnce(contexts: [DeliveryContext]) async {
        let bus = EventBus(label: "boundary \(contexts)")
        let arrivals = Arrivals()
        let handles = contexts.map { bus.listen(Ping.self, executeOn: $0, arrivals.handler()) }
        bus.queue(Ping(value: 1))
        bus.stack(Ping(value: 2))
        // One hop: every target, tasks included, has run its handler once the drain returns.
        await bus.drain()
        #expect(arrivals.value == 2 * contexts.count)
        #expect(bus.statistics.delivered == 2 * contexts.count)
        for handle in handles { handle.cancel() }
    }

    @Test("the route hands each event to a target of any kind through deliver(_:for:), once per subscription")
    func routeCallsDeliver() {
        let bus = EventBus(label: "custom target")
        let target = CountingTarget()
        let subscriptions = (0..<3).map { _ in
            _Subscription(Ping.self, owner: nil, target: target, interest: .all, registrar: bus) {
                (_: Ping, _: EventMetadata) in
            }
        }
        for subscription in subscriptions { bus.register(subscription) }
        for value in 0..<5 { bus.queue(Ping(value: value)) }
        #expect(target.value == 15)
        for subscription in subscriptions { subscription.cancel() }
        bus.queue(Ping(value: 5))
        #expect(target.value == 15, "a removed subscription's target gets nothing more")
    }

    @Test("a route whose subscriber is a pool hands the event to the pool, beside a listener")
    func poolTarget() async {
        let bus = EventBus(label: "pool target")
        let pool = EventPool<PingWorker>(capacity: 2, bus: bus)
        for value in 0..<10 { bus.queue(Ping(value: value)) }
        await pool.drain()
        #expect(bus.statistics.delivered == 10)
        let arrivals = Arrivals()
        let handle = bus.listen(Ping.self, executeOn: .listenerThread, arrivals.handler())
        bus.queue(Ping(value: 10))
        await pool.drain()
        await bus.drain()
        #expect(arrivals.value == 1)
        #expect(bus.statistics.delivered == 12)
        handle.cancel()
        pool.stop()
    }

    @Test("each target kind says where its handlers run")
    func targetsDescribeThemselves() {
        let bus = EventBus(label: "targets")
        let task = _TaskTarget(counters: bus.counters, tasks: bus.tasks)
        let synchronous = _SynchronousTarget(counters: bus.counters)
        let mailbox = bus.listenerMailbox
        #expect(task.receiverKind == .task && !task.usesLanes && !task.runsOnSender)
        #expect(synchronous.receiverKind == .synchronous && !synchronous.usesLanes && synchronous.runsOnSender)
        #expect(mailbox.usesLanes && !mailbox.runsOnSender)
        #expect(mailbox.receiverDescription == mailbox.executor.receiverDescription)
        #expect(task.receiverDescription.contains(".taskThread"))
        #expect(synchronous.receiverDescription.contains(".synchronous"))
    }
}

/// A pool thread with one callback for the suite's event.
private final class PingWorker: EventThread, @unchecked Sendable {  // no state of its own beyond EventThread's
    override func registerEventListeners() {
        addEventCallback(DeliveryBoundaryTests.Ping.self) { _, _ in }
    }
}
