// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

// The scheduling forms with the bus after the priority, as earlier versions of this package
// spelled them. Both arguments are required here, so a call that gives only one of them (or
// neither) finds the native form, never two candidates.

extension Eventable {
    /// ``scheduleQueue(at:on:priority:)`` with the bus last.
    @available(*, deprecated, renamed: "scheduleQueue(at:on:priority:)")
    @discardableResult
    public func scheduleQueue(at time: DispatchTime, priority: EventPriority, on bus: EventBus) -> ScheduledEventHandle
    {
        scheduleQueue(at: time, on: bus, priority: priority)
    }

    /// ``scheduleStack(at:on:priority:)`` with the bus last.
    @available(*, deprecated, renamed: "scheduleStack(at:on:priority:)")
    @discardableResult
    public func scheduleStack(at time: DispatchTime, priority: EventPriority, on bus: EventBus) -> ScheduledEventHandle
    {
        scheduleStack(at: time, on: bus, priority: priority)
    }

    /// ``schedule(after:on:priority:)`` with the bus last.
    @available(*, deprecated, renamed: "schedule(after:on:priority:)")
    @discardableResult
    public func schedule(after delay: Duration, priority: EventPriority, on bus: EventBus) -> ScheduledEventHandle {
        schedule(after: delay, on: bus, priority: priority)
    }

    /// ``scheduleStack(after:on:priority:)`` with the bus last.
    @available(*, deprecated, renamed: "scheduleStack(after:on:priority:)")
    @discardableResult
    public func scheduleStack(after delay: Duration, priority: EventPriority, on bus: EventBus) -> ScheduledEventHandle
    {
        scheduleStack(after: delay, on: bus, priority: priority)
    }
}
