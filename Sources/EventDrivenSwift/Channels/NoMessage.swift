// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

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
