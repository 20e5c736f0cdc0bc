import Dispatch

extension EventBus {
    /// Dispatches `event` once `time` has come, from the one scheduler thread all buses share.
    ///
    /// The event's dispatch time is `time`; ``EventMetadata/scheduledTime`` holds when it was
    /// scheduled.
    /// - Returns: A handle that cancels the dispatch while it is pending.
    @discardableResult
    public func schedule<E: Eventable>(
        _ event: E, at time: DispatchTime, method: EventDispatchMethod = .queue, priority: EventPriority = .normal
    ) -> ScheduledEventHandle {
        let scheduledAt = DispatchTime.now()
        let handle = _EventScheduler.shared.schedule(at: time) { [weak self] in
            self?.dispatch(
                event,
                metadata: EventMetadata(
                    priority: priority, method: method, dispatchTime: time, scheduledTime: scheduledAt))
        }
        scheduledEvents.track(handle)
        return handle
    }
}
