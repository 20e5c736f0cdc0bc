// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// An event that did not reach a receiver it was meant for, and why.
///
/// Observe them with ``EventBus/deadLetters(bufferingPolicy:)``. Every dead letter of a dispatch
/// is also counted in ``EventBus/statistics``; the stream only adds the events themselves. The
/// letters that code outside the bus posts with ``EventBus/postDeadLetter(_:reason:)`` (a broker
/// bridge's messages that were given up on) are not dispatches and are not counted.
public struct DeadLetter: Sendable, CustomStringConvertible {
    /// Why an event was not delivered.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// Nobody listened to the event's type when it was dispatched.
        case undelivered
        /// The event was older than the listener's `maximumAge` when its turn came.
        case expired
        /// A `.latestOnly` listener had a newer event of the type.
        case superseded
        /// The listener's owner had been freed.
        case ownerReleased
        /// A bounded mailbox or a stream's buffer was full and its overflow policy dropped it.
        case dropped
        /// Its receiver was stopped, its listener removed, or the bus shut down before its turn.
        case discarded
        /// The handler threw (``EventDrivenError/Code/handlerFailed``
        /// says what), or a synchronous delivery would have nested deeper than
        /// ``EventBus/maximumSynchronousDepth`` and did not run; the event can be dispatched
        /// again to retry.
        case failed

        /// The reason in words.
        public var description: String {
            switch self {
            case .undelivered: "undelivered"
            case .expired: "expired"
            case .superseded: "superseded"
            case .ownerReleased: "owner released"
            case .dropped: "dropped"
            case .discarded: "discarded"
            case .failed: "failed"
            }
        }
    }

    /// The event.
    public let event: any Eventable
    /// How it was dispatched.
    public let metadata: EventMetadata
    /// Why it was not delivered.
    public let reason: Reason

    /// The event's type, as `String(reflecting:)` names it.
    public var eventType: String { String(reflecting: type(of: event)) }

    /// The reason and the event, on one line.
    public var description: String { "\(eventType) \(reason)" }
}
