// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

extension EventBus {
    /// Dispatches `event` once `time` has come, from the one scheduler thread all buses share.
    ///
    /// The event's dispatch time is `time`; ``EventMetadata/scheduledTime`` holds when it was
    /// scheduled. The `ServiceContext` current here is current again when the event is
    /// dispatched, so its handlers and interceptors see it as for an event dispatched now (see
    /// ``propagatesServiceContext``).
    /// - Returns: A handle that cancels the dispatch while it is pending.
    @discardableResult
    public func schedule<E: Eventable>(
        _ event: E, at time: DispatchTime, method: EventDispatchMethod = .queue, priority: EventPriority = .normal
    ) -> ScheduledEventHandle {
        let scheduledAt = DispatchTime.now()
        let context = _CapturedServiceContext()
        let handle = _EventScheduler.shared.schedule(at: time) { [weak self] in
            context.withContext {
                self?.dispatch(
                    event,
                    metadata: EventMetadata(
                        priority: priority, method: method, dispatchTime: time, scheduledTime: scheduledAt))
            }
        }
        scheduledEvents.track(handle)
        return handle
    }
}
