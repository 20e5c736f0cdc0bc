// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import NIOConcurrencyHelpers
import NIOCore

/// How an imported event is shared among processes.
public enum NATSImportMode: Sendable, Equatable {
    /// Every process gets every event published from now on (a consumer of its own). Events
    /// published while a process is away are not replayed to it when it comes back.
    case broadcast
    /// Each event goes to exactly one process of the group (one shared durable consumer).
    case group(String)
    /// Every event, to this instance, named by a name that stays the same across restarts (a
    /// host name, a pod's ordinal): its consumer is durable, so after a restart it resumes where
    /// it left off, events published while it was away included.
    case durableBroadcast(String)
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
    /// Its header block as it arrived, when that could not be decoded (the reason says so).
    public var rawHeaders: ByteBuffer?

    /// The event, id and reason on one line.
    public var description: String { "\(eventName) \(messageID ?? "-"): \(reason)" }
}

/// Ties an imported event's handler outcome to its message: one slot of a fetched batch.
struct _Settlement: Sendable {
    let batch: _BatchSettlement
    let index: Int

    /// `nil` for handled, or the error the handler threw: the message is settled at once.
    func finish(_ error: (any Error)?) { batch.finish(index, error) }
}

/// The messages of one fetched batch. Each is concluded (acknowledged, sent back or
/// dead-lettered) as soon as its own handler finished, never waiting for the others of its batch:
/// a batch that waited for its slowest handler let queued messages outlive their ack wait. A
/// slot finished twice is concluded once; one never finished when the batch goes (the bus
/// discarded its delivery unhandled: shut down at once, or at its graceful stop's deadline) is
/// concluded as refused by the bus, so that its message is sent back rather than held.
final class _BatchSettlement: Sendable {
    let items: [_Accepted]
    private let finished: NIOLockedValueBox<[Bool]>
    private let conclude: @Sendable (_Accepted, (any Error)?) -> Void

    init(items: [_Accepted], conclude: @escaping @Sendable (_Accepted, (any Error)?) -> Void) {
        self.items = items
        self.finished = NIOLockedValueBox(Array(repeating: false, count: items.count))
        self.conclude = conclude
    }

    deinit {
        let unfinished = finished.withLockedValue { finished in finished.indices.filter { !finished[$0] } }
        for index in unfinished { conclude(items[index], _RefusedByBus()) }
    }

    /// The slot of the batch's `index`-th event.
    func settlement(_ index: Int) -> _Settlement { _Settlement(batch: self, index: index) }

    func finish(_ index: Int, _ error: (any Error)?) {
        let isFirst = finished.withLockedValue { finished -> Bool in
            guard !finished[index] else { return false }
            finished[index] = true
            return true
        }
        if isFirst { conclude(items[index], error) }
    }
}
