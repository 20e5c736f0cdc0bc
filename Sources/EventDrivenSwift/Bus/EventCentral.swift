// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The home of the default bus, ``EventCentral/shared``.
///
/// `event.queue()`, `event.stack()`, `Event.addListener(…)`, and every `EventThread` created
/// without a bus use it.
public enum EventCentral {
    /// The default bus of the process.
    public static let shared = EventBus(label: "EventCentral")

    /// Dispatches `event` through the queue of the default bus.
    public static func queueEvent<E: Eventable>(_ event: E, priority: EventPriority = .normal) {
        shared.queue(event, priority: priority)
    }

    /// Dispatches `event` through the stack of the default bus.
    public static func stackEvent<E: Eventable>(_ event: E, priority: EventPriority = .normal) {
        shared.stack(event, priority: priority)
    }
}
