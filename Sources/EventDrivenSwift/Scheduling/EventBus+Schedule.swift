// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

extension EventBus {
    /// Dispatches `event` once `time` has come.
    ///
    /// One scheduler thread serves every bus, but does not dispatch: when the event falls due it
    /// hands it to a worker of this bus (a thread of libdispatch's overcommitting pool, there
    /// while the bus has due events), which dispatches this bus's scheduled events in due order.
    /// So a dispatch that waits (for room in a full `.blockProducer` mailbox, or in a slow
    /// synchronous listener) holds up only this bus's later scheduled events, never another bus's.
    ///
    /// The event's dispatch time is `time`; ``EventMetadata/scheduledTime`` holds when it was
    /// scheduled. The `ServiceContext` current here is current again when the event is
    /// dispatched, so its handlers and interceptors see it as for an event dispatched now (see
    /// ``propagatesServiceContext``).
    /// On a bus that has shut down, the event is refused as a dispatch is (counted in
    /// ``EventBusStatistics/rejected``, reported as ``EventDrivenError/Code/busShutDown``) and
    /// the handle is cancelled. Events due at the same time fire in the order they were scheduled.
    /// - Returns: A handle that cancels the dispatch while it is pending.
    @discardableResult
    public func schedule<E: Eventable>(
        _ event: E, at time: DispatchTime, method: EventDispatchMethod = .queue, priority: EventPriority = .normal
    ) -> ScheduledEventHandle {
        let metadata = EventMetadata(
            priority: priority, method: method, dispatchTime: time, scheduledTime: DispatchTime.now())
        if scheduledEvents.isClosed {
            // Refused as a dispatch is, with a handle that was never scheduled: handed to the
            // scheduler, a past-due event could fire before the refusal (`AdversarialSchedulingTests`).
            let handle = ScheduledEventHandle(dueTime: time, id: 0, scheduler: .shared)
            _ = handle.transition(to: .cancelled)
            reject(_EventEnvelope(event: event, metadata: metadata, annotation: nil))
            return handle
        }
        let context = _CapturedServiceContext()
        let handle = _EventScheduler.shared.schedule(at: time, on: ObjectIdentifier(self)) { [weak self] in
            context.withContext { self?.dispatch(event, metadata: metadata) }
        }
        if scheduledEvents.track(handle) {
            // The bus shut down meanwhile: refused as a dispatch is (counted, reported), and cancelled.
            reject(_EventEnvelope(event: event, metadata: metadata, annotation: nil))
        }
        return handle
    }
}
