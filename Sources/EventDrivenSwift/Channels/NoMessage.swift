/// The message of a channel that only signals that something happened.
///
/// ```swift
/// let trigger = EventChannel<NoMessage>(label: "A Trigger")
/// bus.subscribe(trigger) { _ in print("Event was triggered") }
/// bus.publish(trigger)
/// ```
public struct NoMessage: Hashable, Sendable {
    /// The one value of this type.
    public init() {}
}
