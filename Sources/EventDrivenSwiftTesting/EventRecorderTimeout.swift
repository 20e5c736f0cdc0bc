// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The error an ``EventRecorder`` wait throws when its events did not arrive in time: it says
/// how many were expected and how many arrived.
public struct EventRecorderTimeout: Error, Sendable, Equatable, CustomStringConvertible {
    /// The event type the recorder records, as `String(reflecting:)` spells it.
    public let eventType: String
    /// How many recorded events the wait needed.
    public let expected: Int
    /// How many had been recorded when the time was up.
    public let received: Int
    /// How long the wait lasted.
    public let timeout: Duration

    /// A timeout of a wait for `expected` events of `eventType`, of which `received` arrived.
    public init(eventType: String, expected: Int, received: Int, timeout: Duration) {
        self.eventType = eventType
        self.expected = expected
        self.received = received
        self.timeout = timeout
    }

    /// For example: `timed out after 5.0 seconds waiting for 3 events of Demo.TemperatureEvent; 2 arrived`.
    public var description: String {
        "timed out after \(timeout) waiting for \(expected) event\(expected == 1 ? "" : "s") of \(eventType); "
            + "\(received) arrived"
    }
}
