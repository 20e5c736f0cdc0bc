// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

extension Eventable {
    /// Queues this event on `bus` once `delay` has passed: the `Duration` form of
    /// ``scheduleQueue(at:on:priority:)``.
    ///
    /// ```swift
    /// let handle = TemperatureEvent(temperatureInCelsius: 4).schedule(after: .milliseconds(200))
    /// handle.cancel()
    /// ```
    /// - Returns: A handle that can cancel the dispatch while it is still pending.
    @discardableResult
    public func schedule(
        after delay: Duration, on bus: EventBus = EventCentral.shared, priority: EventPriority = .normal
    ) -> ScheduledEventHandle {
        bus.schedule(self, after: delay, method: .queue, priority: priority)
    }

    /// Stacks this event on `bus` once `delay` has passed: the `Duration` form of
    /// ``scheduleStack(at:on:priority:)``.
    @discardableResult
    public func scheduleStack(
        after delay: Duration, on bus: EventBus = EventCentral.shared, priority: EventPriority = .normal
    ) -> ScheduledEventHandle {
        bus.schedule(self, after: delay, method: .stack, priority: priority)
    }
}

extension EventBus {
    /// Dispatches `event` once `delay` has passed (a negative `delay` means now); see
    /// ``schedule(_:at:method:priority:)``.
    @discardableResult
    public func schedule<E: Eventable>(
        _ event: E, after delay: Duration, method: EventDispatchMethod = .queue, priority: EventPriority = .normal
    ) -> ScheduledEventHandle {
        schedule(
            event, at: .now() + .nanoseconds(Int(clamping: delay._nonnegativeNanoseconds)), method: method,
            priority: priority)
    }
}
