// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

internal import CEventDrivenSwiftShims

/// Whether the code running now is a handler the library runs, so that its dispatches are the
/// follow-ups a graceful stop lets through (``EventBus/shutdown(gracefullyWithin:)``).
///
/// Read only while a bus is stopping, never on a running bus's dispatch path. Each receiver kind
/// already marks its handlers' context; none pays anything more per delivery:
/// - a synchronous listener or consumer runs at a synchronous depth above zero (``_SynchronousDepth``);
/// - a mailbox's drain (EventThreads and pool members, the listener thread, serial, main-actor
///   and actor contexts) runs with ``_ReceiverContext/current`` set;
/// - a `.taskThread` task and an async or actor listener's task run with ``isHandler`` set.
///
/// A handler of any bus of the process counts: a mailbox can serve several buses, and the
/// graceful stop's deadline bounds what handlers of other buses may still dispatch.
enum _HandlerScope {
    /// Set for the tasks the library runs handlers in.
    @TaskLocal static var isHandler = false

    /// `true` when called from a handler the library runs, on any receiver.
    static var isCurrent: Bool {
        if c_eds_synchronous_depth_pointer().unsafelyUnwrapped.pointee > 0 { return true }
        if _ReceiverContext.current != nil { return true }
        return isHandler
    }
}
