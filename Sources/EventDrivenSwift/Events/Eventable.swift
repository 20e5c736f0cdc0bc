// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// A value that can be dispatched as an event.
///
/// Any `Sendable` type can be an event; a `struct` of immutable values is the usual choice:
///
/// ```swift
/// struct TemperatureEvent: Eventable {
///     var temperatureInCelsius: Float
/// }
/// ```
///
/// Events are routed by their exact dynamic type, so `Box<Int>` and `Box<String>` are two
/// different event types.
public protocol Eventable: Sendable {}

extension Eventable {
    /// Dispatches this event through the queue of ``EventCentral/shared`` and returns at once.
    ///
    /// Queued events reach each receiver after its stacked events, highest priority first and,
    /// within a priority, first in first out.
    ///
    /// `file` and `line` say where the dispatch is, for interceptors and the topology
    /// (``EventSource``); leave them to their defaults.
    @inlinable
    public func queue(priority: EventPriority = .normal, file: StaticString = #fileID, line: UInt = #line) {
        EventCentral.shared.queue(self, priority: priority, file: file, line: line)
    }

    /// Dispatches this event through the stack of ``EventCentral/shared`` and returns at once.
    ///
    /// Stacked events reach each receiver before its queued events, highest priority first and,
    /// within a priority, last in first out.
    ///
    /// `file` and `line` say where the dispatch is, for interceptors and the topology
    /// (``EventSource``); leave them to their defaults.
    @inlinable
    public func stack(priority: EventPriority = .normal, file: StaticString = #fileID, line: UInt = #line) {
        EventCentral.shared.stack(self, priority: priority, file: file, line: line)
    }

    /// Queues this event on `bus` (``EventCentral/shared`` by default) once `time` has come.
    ///
    /// As in every dispatch API, `on:` follows what the call is about (the event, and here its
    /// time) and comes before the options.
    /// - Returns: A handle that can cancel the dispatch while it is still pending.
    @discardableResult
    public func scheduleQueue(
        at time: DispatchTime, on bus: EventBus = EventCentral.shared, priority: EventPriority = .normal
    ) -> ScheduledEventHandle {
        bus.schedule(self, at: time, method: .queue, priority: priority)
    }

    /// Stacks this event on `bus` (``EventCentral/shared`` by default) once `time` has come.
    ///
    /// - Returns: A handle that can cancel the dispatch while it is still pending.
    @discardableResult
    public func scheduleStack(
        at time: DispatchTime, on bus: EventBus = EventCentral.shared, priority: EventPriority = .normal
    ) -> ScheduledEventHandle {
        bus.schedule(self, at: time, method: .stack, priority: priority)
    }
}
