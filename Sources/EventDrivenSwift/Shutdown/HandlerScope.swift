// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

internal import CEventDrivenSwiftShims
import Synchronization

/// Whether the code running now is a handler the library runs, so that its dispatches are the
/// follow-ups a graceful stop lets through (``EventBus/shutdown(gracefullyWithin:)``).
///
/// Read only while a bus is stopping, never on a running bus's dispatch path. Each receiver kind
/// already marks its handlers' context; none pays anything more per delivery:
/// - a synchronous listener or consumer runs at a synchronous depth above zero (``_SynchronousDepth``);
/// - a mailbox's drain (EventThreads and pool members, the listener thread, serial, main-actor
///   and actor contexts) runs with ``_ReceiverContext/current`` set;
/// - a `.taskThread` task and an async or actor listener's task run with ``task`` set.
///
/// A handler of any bus of the process counts: a mailbox can serve several buses, and the
/// graceful stop's deadline bounds what handlers of other buses may still dispatch.
enum _HandlerScope {
    /// The handler that a task the library runs is running; `nil` in every other task.
    enum HandlerTask: Sendable {
        /// A `.taskThread` delivery's task.
        case taskThread
        /// The task of an async or actor listener (``_SerialHandlerSink``) running the handler
        /// of its `delivery`-th delivery, with the listener's mark for drains.
        case serialListener(_ListenerHandlerMark, delivery: UInt64)
    }

    /// Set for the tasks the library runs handlers in, and inherited by the tasks they start.
    @TaskLocal static var task: HandlerTask?

    /// `true` in a task the library runs a handler in, or a task that one started.
    static var isHandler: Bool { task != nil }

    /// The mark of the async or actor listener whose handler is running in this task (or in the
    /// task that started this one, while it still runs), if any.
    static var serialListener: _ListenerHandlerMark? {
        if case .serialListener(let mark, let delivery) = task, mark.isRunning(delivery) { return mark }
        return nil
    }

    /// `true` when called from a handler the library runs, on any receiver.
    static var isCurrent: Bool {
        if c_eds_synchronous_depth_pointer().unsafelyUnwrapped.pointee > 0 { return true }
        if _ReceiverContext.current != nil { return true }
        return isHandler
    }
}

/// An async or actor listener's handler as `drain()` and `waitUntilQuiet()` see it: which of its
/// deliveries is running, and whether it is awaiting one of those waits.
///
/// Such a wait, awaited inside the handler (or a task it started, while it runs), cannot wait for
/// the handler itself, nor for another such handler awaiting a wait too (the two would wait for
/// each other): each wait sets its own listener's mark first, then leaves out every marked
/// listener of the bus. Both steps are sequentially consistent, so of two handlers that start
/// waiting at once, at least one sees the other's mark, and neither waits for the other forever.
final class _ListenerHandlerMark: Sendable {
    /// The number of the delivery whose handler is running; 0 between deliveries.
    private let running = Atomic<UInt64>(0)
    private let waits = Atomic<Int>(0)

    /// Called by the listener's task around each handler, with a number new to this listener.
    func handlerStarts(_ delivery: UInt64) { running.store(delivery, ordering: .sequentiallyConsistent) }
    func handlerEnds() { running.store(0, ordering: .sequentiallyConsistent) }

    /// Whether the handler of `delivery` is still running: not so for a task it started that
    /// drains after it returned.
    func isRunning(_ delivery: UInt64) -> Bool { running.load(ordering: .sequentiallyConsistent) == delivery }

    /// Whether the handler is awaiting a drain now.
    var isAwaitingDrain: Bool { waits.load(ordering: .sequentiallyConsistent) > 0 }

    /// Marks the handler as awaiting a drain for the time `body` takes.
    func awaitingDrain<Result>(_ body: () async -> Result) async -> Result {
        waits.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { waits.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        return await body()
    }
}
