import Dispatch

extension Eventable {
    /// Queues this event on `bus` once `delay` has passed: the `Duration` form of
    /// ``scheduleQueue(at:priority:on:)``.
    ///
    /// ```swift
    /// let handle = TemperatureEvent(temperatureInCelsius: 4).schedule(after: .milliseconds(200))
    /// handle.cancel()
    /// ```
    /// - Returns: A handle that can cancel the dispatch while it is still pending.
    @discardableResult
    public func schedule(
        after delay: Duration, priority: EventPriority = .normal, on bus: EventBus = EventCentral.shared
    ) -> ScheduledEventHandle {
        bus.schedule(
            self, at: .now() + .nanoseconds(Int(clamping: delay._nonnegativeNanoseconds)), method: .queue,
            priority: priority)
    }

    /// Stacks this event on `bus` once `delay` has passed: the `Duration` form of
    /// ``scheduleStack(at:priority:on:)``.
    @discardableResult
    public func scheduleStack(
        after delay: Duration, priority: EventPriority = .normal, on bus: EventBus = EventCentral.shared
    ) -> ScheduledEventHandle {
        bus.schedule(
            self, at: .now() + .nanoseconds(Int(clamping: delay._nonnegativeNanoseconds)), method: .stack,
            priority: priority)
    }
}
