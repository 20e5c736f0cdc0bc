// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The target of `.taskThread` subscriptions: every delivery runs in a task of its own, which
/// the bus's task tracker counts for `drain()`.
final class _TaskTarget: _DeliveryTarget {
    private let counters: _BusCounters
    private let tasks: _TaskTracker

    init(counters: _BusCounters, tasks: _TaskTracker) {
        self.counters = counters
        self.tasks = tasks
    }

    /// Starts the task. Kept out of line: inlined, its task priority's stack space would be set
    /// up on every dispatch of the callers.
    @inline(never)
    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        let counters = counters
        tasks.start {
            // Marked as a handler's task: its dispatches are follow-ups a graceful stop lets through.
            _HandlerScope.$task.withValue(.taskThread) { counters.settle(subscription.deliver(envelope), envelope) }
        }
    }

    var receiverDescription: String { "a task of its own (.taskThread)" }
    var receiverName: String { "task" }
    var receiverKind: EventReceiverKind { .task }
    var usesLanes: Bool { false }
}
