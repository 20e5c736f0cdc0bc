// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

internal import CEventDrivenSwiftShims
import Synchronization

/// The target of `.synchronous` subscriptions: the handler runs on the dispatching thread,
/// before the dispatch returns, nested at most ``EventBus/maximumSynchronousDepth`` deep.
final class _SynchronousTarget: _DeliveryTarget {
    /// The counters of the bus the subscriptions are on.
    let counters: _BusCounters

    init(counters: _BusCounters) {
        self.counters = counters
    }

    /// Runs the handler here, one level deeper, and counts the outcome.
    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        // The calling thread's own word (a C thread-local, never null), alive as long as the thread.
        let depth = c_eds_synchronous_depth_pointer().unsafelyUnwrapped
        guard depth.pointee < _SynchronousDepth.limit.load(ordering: .relaxed) else {
            return subscription.refuseTooDeep(envelope, counters: counters)
        }
        depth.pointee += 1
        let outcome = subscription.deliver(envelope)
        depth.pointee -= 1
        if outcome == .delivered {
            counters.delivered.wrappingAdd(1, ordering: .relaxed)
        } else {
            counters.settle(outcome, envelope)
        }
    }

    /// ``deliver(_:for:)`` for neighbouring subscriptions of a route: one level deeper for all
    /// of them, the handlers in order, the deliveries counted together.
    func deliver(_ envelope: _EventEnvelope, to run: Range<Int>, of route: _Route) {
        let depth = c_eds_synchronous_depth_pointer().unsafelyUnwrapped
        guard depth.pointee < _SynchronousDepth.limit.load(ordering: .relaxed) else {
            route.forEach(in: run) { $0.refuseTooDeep(envelope, counters: counters) }
            return
        }
        depth.pointee += 1
        var delivered = 0
        route.forEach(in: run) { subscription in
            let outcome = subscription.deliver(envelope)
            if outcome == .delivered { delivered += 1 } else { counters.settle(outcome, envelope) }
        }
        depth.pointee -= 1
        counters.delivered.wrappingAdd(delivered, ordering: .relaxed)
    }

    var receiverDescription: String { "the dispatching thread (.synchronous)" }
    var receiverName: String { "synchronous (dispatching thread)" }
    var receiverKind: EventReceiverKind { .synchronous }
    var usesLanes: Bool { false }
    var runsOnSender: Bool { true }
}

/// How deeply synchronous deliveries nest on the current thread: a synchronous receiver that
/// dispatches again runs the next level on the same stack, so the depth is bounded by
/// ``EventBus/maximumSynchronousDepth`` instead of by a stack overflow.
///
/// Each thread counts in a C thread-local word (`CEventDrivenSwiftShims`): reaching it is an
/// offset from the thread pointer, where `pthread_getspecific` cost a call and 17 instructions.
enum _SynchronousDepth {
    /// The process-wide limit (``EventBus/maximumSynchronousDepth``).
    static let limit = Atomic<Int>(64)

    /// Enters one more level of synchronous delivery on this thread, or returns `false` without
    /// entering when the thread is at the limit. Every `true` is followed by one ``leave()``.
    @inline(__always)
    static func enter() -> Bool {
        let depth = c_eds_synchronous_depth_pointer()!
        guard depth.pointee < limit.load(ordering: .relaxed) else { return false }
        depth.pointee += 1
        return true
    }

    /// Leaves the level the last successful ``enter()`` entered.
    @inline(__always)
    static func leave() {
        c_eds_synchronous_depth_pointer()!.pointee -= 1
    }
}

extension EventBus {
    /// How deeply synchronous deliveries may nest on one thread, for every bus of the process;
    /// 64 unless set.
    ///
    /// A synchronous receiver (a consumer, or a listener on ``DeliveryContext/synchronous``) that
    /// dispatches again runs the next level on the same stack, the dispatch's frames and the
    /// handler's own for each level. A delivery
    /// that would go deeper does not run: it is counted as failed
    /// (``EventBusStatistics/failed``), posted as a ``DeadLetter/Reason/failed`` dead letter and
    /// reported as ``EventDrivenError/synchronousDepthExceeded(bus:eventType:receiver:limit:)``,
    /// so an endless synchronous chain ends in an error you can see instead of a crash. Deliveries
    /// to other receivers (queued on threads, tasks or streams) do not nest and are not limited.
    ///
    /// - Precondition: At least 1.
    public static var maximumSynchronousDepth: Int {
        get { _SynchronousDepth.limit.load(ordering: .relaxed) }
        set {
            precondition(newValue >= 1, "EventBus.maximumSynchronousDepth must be at least 1, not \(newValue)")
            _SynchronousDepth.limit.store(newValue, ordering: .relaxed)
        }
    }

    /// Counts and reports a synchronous delivery that was refused for nesting too deeply.
    @inline(never)
    func refuseTooDeep(_ envelope: _EventEnvelope, receiver: String, intercepted: EventReceiver? = nil) {
        // No handler ran to report this outcome to the interceptors (the dead-letter office
        // leaves failures to the handler's run): report it here, once.
        counters.observation.settled(.failed, envelope, receiver: intercepted)
        counters.settle(.failed, envelope)
        report(
            .synchronousDepthExceeded(
                bus: label, eventType: String(reflecting: type(of: envelope.event)), receiver: receiver,
                limit: Self.maximumSynchronousDepth))
    }
}
