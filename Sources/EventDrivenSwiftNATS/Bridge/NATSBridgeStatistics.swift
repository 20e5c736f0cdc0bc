// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// What a ``NATSBridge`` has carried, and what it could not.
public struct NATSBridgeStatistics: Sendable, Equatable {
    /// Events handed to the broker (first attempts).
    public var exported = 0
    /// Publishes the broker acknowledged.
    public var acknowledged = 0
    /// Of those, how many the broker had already stored (same `Nats-Msg-Id`): a retry whose
    /// first attempt had arrived.
    public var duplicates = 0
    /// Publish attempts repeated after a timeout, a lost connection or a full buffer.
    public var publishRetries = 0
    /// Publishes given up after every attempt (each reported as
    /// ``NATSBridgeError/publishFailed(messageID:event:reason:)``).
    public var publishFailures = 0
    /// Deliveries received from the broker.
    public var received = 0
    /// Deliveries handled and acknowledged.
    public var handled = 0
    /// Deliveries sent back (`-NAK`) because a handler threw.
    public var retried = 0
    /// Deliveries terminated and copied to the dead-letter subject.
    public var deadLettered = 0
    /// Deliveries the local bus refused because it was shut down (or shutting down), and
    /// deliveries of ``NATSBridge/listen(_:mode:handler:)`` it discarded unhandled (shut down at
    /// once, or at its graceful stop's deadline): sent back
    /// without delay (`-NAK`) for another process once the fetch outstanding has ended, not
    /// dead-lettered. The import of their type stops at the first one.
    public var refusedByBus = 0
    /// Imported events that a receiver's full bounded mailbox on the local bus refused
    /// (`EventDrivenError.Code.mailboxFull`, from a `.failDispatch` receiver), one per event
    /// however many receivers refused it; logged (the first, then every 1,000th). The bus's
    /// other receivers got the event, and its message is acknowledged as usual, not sent back:
    /// the refusing receiver's copy is the bus's dropped event (its `statistics.dropped`, a
    /// dead letter with reason `.dropped`). See ``NATSBridge/importEvents(_:mode:)``.
    public var refusedByFullMailbox = 0
    /// Acks, naks or terms that could not be sent (the broker redelivers those messages).
    public var settleFailures = 0
    /// `+WPI`s sent for messages held for a third of the ack wait (waiting for their handler, or
    /// in it) since they arrived or since their last `+WPI`.
    public var inProgress = 0
    /// Dead letters not handed to a ``NATSBridge/deadLetters(limit:)`` stream because its reader
    /// left it full (one count per stream that missed a letter).
    public var deadLettersDropped = 0
    /// Max-deliveries advisories that did not become dead letters: more arrived than could wait
    /// to be read back (1,024 per consumer), their message could not be read back, or it was not
    /// on the consumer's subject (an advisory the server did not send). Their messages stay in
    /// the stream; the drops are logged (the first time, then every 1,000th). See
    /// ``EventTransport/droppedExhaustedDeliveries``.
    public var droppedAdvisories = 0
}

/// The live counters behind ``NATSBridgeStatistics``.
final class _BridgeCounters: Sendable {
    let exported = Atomic<Int>(0)
    let acknowledged = Atomic<Int>(0)
    let duplicates = Atomic<Int>(0)
    let publishRetries = Atomic<Int>(0)
    let publishFailures = Atomic<Int>(0)
    let received = Atomic<Int>(0)
    let handled = Atomic<Int>(0)
    let retried = Atomic<Int>(0)
    let deadLettered = Atomic<Int>(0)
    let refusedByBus = Atomic<Int>(0)
    let refusedByFullMailbox = Atomic<Int>(0)
    let settleFailures = Atomic<Int>(0)
    let inProgress = Atomic<Int>(0)
    let deadLettersDropped = Atomic<Int>(0)

    var snapshot: NATSBridgeStatistics {
        NATSBridgeStatistics(
            exported: exported.load(ordering: .relaxed), acknowledged: acknowledged.load(ordering: .relaxed),
            duplicates: duplicates.load(ordering: .relaxed), publishRetries: publishRetries.load(ordering: .relaxed),
            publishFailures: publishFailures.load(ordering: .relaxed), received: received.load(ordering: .relaxed),
            handled: handled.load(ordering: .relaxed), retried: retried.load(ordering: .relaxed),
            deadLettered: deadLettered.load(ordering: .relaxed), refusedByBus: refusedByBus.load(ordering: .relaxed),
            refusedByFullMailbox: refusedByFullMailbox.load(ordering: .relaxed),
            settleFailures: settleFailures.load(ordering: .relaxed),
            inProgress: inProgress.load(ordering: .relaxed),
            deadLettersDropped: deadLettersDropped.load(ordering: .relaxed))
    }
}
