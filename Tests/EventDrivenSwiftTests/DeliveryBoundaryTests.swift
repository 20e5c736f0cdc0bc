import Synchronization
import Testing

@testable import EventDrivenSwift

/// The delivery boundary (issue 14): every kind of receiver is a `_DeliveryTarget`, and a route
/// chooses its plan from what its targets offer, without knowing their kinds itself.
@Suite("Issue 14: one delivery boundary")
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

    private static func plan(of bus: EventBus) -> _DeliveryPlan? {
        bus.registry.withLock { $0.routes[ObjectIdentifier(Ping.self)]?.plan }
    }

    private static func kind(_ plan: _DeliveryPlan?) -> String {
        switch plan {
        case .servedMailboxes: "servedMailboxes"
        case .synchronousBatch: "synchronousBatch"
        case .pool: "pool"
        case .eachTarget: "eachTarget"
        case nil: "none"
        }
    }

    @Test(
        "a route's plan follows the kinds of its targets",
        arguments: [
            ([ExecuteEventOn.listenerThread], "servedMailboxes"),
            ([.listenerThread, .listenerThread, .requesterThread], "servedMailboxes"),
            ([.synchronous], "synchronousBatch"),
            ([.synchronous, .synchronous], "synchronousBatch"),
            ([.taskThread], "eachTarget"),
            ([.listenerThread, .synchronous], "eachTarget"),
            ([.synchronous, .taskThread, .listenerThread], "eachTarget"),
        ])
    func planFollowsTargets(contexts: [ExecuteEventOn], expected: String) async {
        let bus = EventBus(label: "plan \(contexts)")
        let arrivals = Arrivals()
        let handles = contexts.map { bus.listen(Ping.self, executeOn: $0, arrivals.handler()) }
        #expect(Self.kind(Self.plan(of: bus)) == expected)
        // Whatever the plan, every target gets the event once, and each delivery is counted.
        bus.queue(Ping(value: 1))
        // One hop: every target, tasks included, has run its handler once the drain returns.
        await bus.drain()
        #expect(arrivals.value == contexts.count)
        #expect(bus.statistics.delivered == UInt64(contexts.count))
        for handle in handles { handle.cancel() }
        #expect(Self.kind(Self.plan(of: bus)) == "none")
    }

    @Test("a route whose one subscriber is a pool hands the event to the pool")
    func poolPlan() async {
        let bus = EventBus(label: "pool plan")
        let pool = EventPool<PingWorker>(capacity: 2, bus: bus)
        #expect(Self.kind(Self.plan(of: bus)) == "pool")
        for value in 0..<10 { bus.queue(Ping(value: value)) }
        await pool.drain()
        #expect(bus.statistics.delivered == 10)
        // A listener beside the pool turns the route into one call per target, and both receive.
        let arrivals = Arrivals()
        let handle = bus.listen(Ping.self, executeOn: .listenerThread, arrivals.handler())
        #expect(Self.kind(Self.plan(of: bus)) == "eachTarget")
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
