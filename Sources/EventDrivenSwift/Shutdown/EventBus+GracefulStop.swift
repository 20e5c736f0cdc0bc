// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Logging

// The graceful stop with a deadline: finish what the bus accepted, then shut it down.

extension EventBus {
    /// Shuts the bus down gracefully within `timeout`, finishing what it accepted: the events
    /// dispatched before the call, and every event that its handlers dispatch meanwhile, however
    /// many hops that takes.
    ///
    /// From the call on, dispatches from outside the bus's handlers are refused: counted as
    /// ``EventBusStatistics/rejected`` and ``EventBusStatistics/rejectedWhileStopping``, reported
    /// as ``EventDrivenError/Code/busShutDown``, and the first one logged as a warning
    /// (a producer still running while the bus stops; stop it first). The dispatches of the bus's
    /// handlers (listeners and consumers of every kind, EventThreads and pools, `.taskThread`
    /// tasks, async and actor listeners) are accepted until the bus is quiet
    /// (``waitUntilQuiet(timeout:)``); then it shuts down as ``shutdown(immediately:)`` with
    /// `false` does. A `Task` that a handler starts counts as the handler only when the handler
    /// itself runs in a task (`.taskThread`, async and actor listeners), whose task-local values
    /// the new task inherits; one started from a handler that runs on a thread or a queue is
    /// outside the bus's handlers.
    ///
    /// If the bus is not quiet when `timeout` has passed, or if ``shutdown(immediately:)`` with
    /// `true` is called meanwhile, or if the calling task is cancelled, the rest stops at once,
    /// as ``shutdown(immediately:)`` with `true` does: every delivery not yet started is
    /// discarded, counted in ``EventBusStatistics/discarded`` and posted as a
    /// ``DeadLetter/Reason/discarded`` dead letter; handlers already running finish.
    ///
    /// ```swift
    /// if let cut = await bus.shutdown(gracefullyWithin: .seconds(10)) {
    ///     logger.warning("stopped at the deadline: \(cut)")   // what was pending, discarded and counted
    /// }
    /// ```
    ///
    /// Awaited inside an async or actor listener's handler, it starts the stop in a task of its
    /// own and returns `nil` at once, as ``shutdown(immediately:)`` does.
    ///
    /// - Parameter timeout: The deadline of the whole stop, from the call.
    /// - Returns: `nil` when everything accepted was handled; otherwise what was still going on
    ///   when the rest was stopped. A call while another shutdown runs waits for it and returns `nil`.
    @discardableResult
    public func shutdown(gracefullyWithin timeout: Duration) async -> EventBusNotQuietError? {
        if _HandlerScope.isHandler {
            shutdownLater { _ = await $0.shutdown(gracefullyWithin: timeout) }
            return nil
        }
        let cut = _QuietCut()
        guard await lifecycle.beginFinishing(cut: { cut.cut() }) else { return nil }
        defer { lifecycle.end() }
        scheduledEvents.cancelAll()
        let notQuiet = await quiet(within: timeout, cut: cut)
        counters.observation.isClosed.store(true, ordering: .relaxed)
        lifecycle.finishingEnded(immediately: notQuiet != nil)
        await stopReceivers(immediately: notQuiet != nil)
        return notQuiet
    }

    /// Whether a dispatch made now, from this thread, will be refused and reported as rejected
    /// rather than as a dispatch: the bus is not accepting, and the dispatch is neither a handler's
    /// follow-up during a graceful stop nor one that a cut stop discards. Counts and warns of
    /// nothing (``admitsWhileStopping(_:)`` does, when the dispatch is refused). Read before an
    /// observed dispatch is shown to interceptors, so that they see a refused one only as
    /// rejected; a stop that begins between this and the dispatch's own check may still show
    /// one event as both.
    func refusesDispatchesFromHere() -> Bool {
        guard !lifecycle.isAccepting else { return false }
        guard _HandlerScope.isCurrent else { return true }
        return !lifecycle.admitsHandlerDispatches.load(ordering: .sequentiallyConsistent)
            && !lifecycle.wasCut.load(ordering: .sequentiallyConsistent)
    }

    /// Whether a dispatch that found the bus not accepting may go ahead: while a graceful stop
    /// finishes what the bus accepted, a dispatch from one of the bus's handlers may. Counts and
    /// warns of one from outside them. Kept out of line: a running bus never calls it.
    @inline(never)
    func admitsWhileStopping(_ event: any Eventable) -> Bool {
        guard lifecycle.admitsHandlerDispatches.load(ordering: .sequentiallyConsistent) else { return false }
        if _HandlerScope.isCurrent { return true }
        counters.rejectedWhileStopping.add(1, ordering: .relaxed)
        if !lifecycle.warnedOfOutsideDispatch.exchange(true, ordering: .relaxed) {
            logger.warning(
                """
                The bus refused a dispatch from outside its handlers while it stopped gracefully: a producer \
                is still running. Stop the services that dispatch on the bus before the bus (list \
                EventBusService first in the ServiceGroup, or use ServiceGroup(bus:producers:)).
                """,
                metadata: ["bus": "\(label)", "eventType": "\(String(reflecting: type(of: event)))"])
        }
        return false
    }
}
