import EventDrivenSwift
import NIOConcurrencyHelpers
import NIOCore

/// How an imported event is shared among processes.
public enum NATSImportMode: Sendable, Equatable {
    /// Every process gets every event published from now on (a consumer of its own).
    case broadcast
    /// Each event goes to exactly one process of the group (one shared durable consumer).
    case group(String)
}

/// Where an imported event came from, for its handler.
public struct NATSDeliveryInfo: Sendable {
    /// The publisher's `Nats-Msg-Id`: the same on every redelivery.
    public var messageID: String
    /// The subject it travelled on.
    public var subject: String
    /// How often the broker has delivered it, this time included.
    public var deliveryCount: Int
    /// The publisher's `Eds-Source`.
    public var source: String?
    /// The publisher's trace context, if it sent one.
    public var traceparent: String?
    /// Every header.
    public var headers: NATSHeaders
}

/// A message the bridge terminated and copied to `<prefix>.deadletter.<name>`.
///
/// It is an `Eventable`, so that the bridge can post it to its bus's `deadLetters()` (reason
/// `.failed`) as well as to ``NATSBridge/deadLetters()``: one place to watch for everything the
/// process gave up on, local or imported.
public struct NATSDeadLetter: Eventable, CustomStringConvertible {
    /// The original message's `Nats-Msg-Id`, if it had one.
    public var messageID: String?
    /// The event name it carried (or the subject's last part).
    public var eventName: String
    /// The subject it arrived on.
    public var subject: String
    /// Why (also in the copy's `Eds-Error` header).
    public var reason: String
    /// How often it had been delivered.
    public var deliveryCount: Int
    /// Its body, unchanged.
    public var payload: ByteBuffer

    /// The event, id and reason on one line.
    public var description: String { "\(eventName) \(messageID ?? "-"): \(reason)" }
}

/// Ties an imported event's handler outcome to its message.
final class _Settlement: Sendable {
    private struct State: Sendable {
        var outcome: (any Error)??
        var waiter: CheckedContinuation<(any Error)?, Never>?
    }

    private let state = NIOLockedValueBox(State())

    /// `nil` for handled, or the error the handler threw.
    func finish(_ error: (any Error)?) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<(any Error)?, Never>? in
            state.outcome = .some(error)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: error)
    }

    /// Waits for ``finish(_:)``.
    func outcome() async -> (any Error)? {
        await withCheckedContinuation { continuation in
            let known = state.withLockedValue { state -> (any Error)?? in
                if let outcome = state.outcome { return .some(outcome) }
                state.waiter = continuation
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }
}
