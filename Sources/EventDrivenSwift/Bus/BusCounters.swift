// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// The counters of one bus. Producers touch only the counters of rare outcomes; deliveries
/// are added once per batch, so the hot path shares no counter cache line.
@usableFromInline
final class _BusCounters: Sendable {
    let delivered = Atomic<Int>(0)
    let undelivered = Atomic<Int>(0)
    let expired = Atomic<Int>(0)
    let superseded = Atomic<Int>(0)
    let filtered = Atomic<Int>(0)
    let discarded = Atomic<Int>(0)
    let ownerGone = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    /// Of `rejected`, the dispatches refused from outside the bus's handlers during a graceful stop.
    let rejectedWhileStopping = Atomic<Int>(0)
    /// Dispatches refused after shutdown that were reported (the bus logs the 1st, 10th, 100th…
    /// of them, so that a producer still running cannot flood the log).
    let shutDownReports = Atomic<Int>(0)
    /// Deliveries a full bounded mailbox or stream buffer dropped.
    let dropped = Atomic<Int>(0)
    /// Deliveries whose handler threw (not counted as delivered).
    let failed = Atomic<Int>(0)
    /// Where undelivered events are posted for dead-letter observers.
    let deadLetters: _DeadLetterOffice
    /// The bus's interceptors (Observability/).
    @usableFromInline
    let observation: _Observation

    init(busLabel: String) {
        observation = _Observation(busLabel: busLabel)
        deadLetters = _DeadLetterOffice(observation: observation)
    }

    func record(_ tally: _DeliveryTally) {
        if tally.delivered > 0 { delivered.wrappingAdd(tally.delivered, ordering: .relaxed) }
        if tally.expired > 0 { expired.wrappingAdd(tally.expired, ordering: .relaxed) }
        if tally.superseded > 0 { superseded.wrappingAdd(tally.superseded, ordering: .relaxed) }
        if tally.filtered > 0 { filtered.wrappingAdd(tally.filtered, ordering: .relaxed) }
        if tally.ownerGone > 0 { ownerGone.wrappingAdd(tally.ownerGone, ordering: .relaxed) }
        // A delivery skipped because its listener was removed is dropped by the receiver.
        if tally.removed > 0 { discarded.wrappingAdd(tally.removed, ordering: .relaxed) }
        if tally.failed > 0 { failed.wrappingAdd(tally.failed, ordering: .relaxed) }
        if tally.dropped > 0 { dropped.wrappingAdd(tally.dropped, ordering: .relaxed) }
    }

    /// The one rule every receiver follows: counts one (event, subscriber) pair's outcome, once,
    /// when it is decided, and posts the dead letter the outcome stands for (every outcome but
    /// a delivery and a filter's refusal).
    @inline(__always)
    func settle(_ outcome: _DeliveryOutcome, _ envelope: _EventEnvelope) {
        if outcome == .delivered {
            delivered.wrappingAdd(1, ordering: .relaxed)
        } else {
            settleUndelivered(outcome, envelope)
        }
    }

    /// Counts an event that found no receiver (``DeadLetter/Reason/undelivered``) and posts it
    /// as a dead letter if anyone observes them.
    @inline(never)
    func settleNoReceiver(_ envelope: _EventEnvelope) {
        undelivered.wrappingAdd(1, ordering: .relaxed)
        if deadLetters.isObserved { deadLetters.post(envelope, reason: .undelivered) }
    }

    @inline(never)
    private func settleUndelivered(_ outcome: _DeliveryOutcome, _ envelope: _EventEnvelope) {
        record(outcome)
        noteUndelivered(outcome, envelope)
    }

    /// Counts one delivery's outcome.
    @inline(__always)
    func record(_ outcome: _DeliveryOutcome) {
        if outcome == .delivered {
            delivered.wrappingAdd(1, ordering: .relaxed)
        } else {
            var tally = _DeliveryTally()
            tally.record(outcome)
            record(tally)
        }
    }

    var snapshot: EventBusStatistics {
        EventBusStatistics(
            delivered: delivered.load(ordering: .relaxed),
            undelivered: undelivered.load(ordering: .relaxed),
            expired: expired.load(ordering: .relaxed),
            superseded: superseded.load(ordering: .relaxed),
            filtered: filtered.load(ordering: .relaxed),
            discarded: discarded.load(ordering: .relaxed),
            ownerReleased: ownerGone.load(ordering: .relaxed),
            rejected: rejected.load(ordering: .relaxed),
            rejectedWhileStopping: rejectedWhileStopping.load(ordering: .relaxed),
            dropped: dropped.load(ordering: .relaxed),
            failed: failed.load(ordering: .relaxed)
        )
    }
}

/// What happened to one delivery attempt.
enum _DeliveryOutcome {
    case delivered
    /// The listener was removed before the delivery started.
    case removed
    case ownerGone
    case expired
    case superseded
    case filtered
    /// The handler ran and threw.
    case failed
    /// A full stream buffer dropped it.
    case dropped
}

/// Outcomes counted over one batch, added to the bus counters at its end.
struct _DeliveryTally {
    var delivered = 0
    var expired = 0
    var superseded = 0
    var filtered = 0
    var ownerGone = 0
    var removed = 0
    var failed = 0
    var dropped = 0

    /// Counts one outcome. Inlined: a drainer calls it for every delivery, and a delivery is
    /// almost always `.delivered`, which the caller's loop then adds without a call.
    @inline(__always)
    mutating func record(_ outcome: _DeliveryOutcome) {
        switch outcome {
        case .delivered: delivered += 1
        case .removed: removed += 1
        case .ownerGone: ownerGone += 1
        case .expired: expired += 1
        case .superseded: superseded += 1
        case .filtered: filtered += 1
        case .failed: failed += 1
        case .dropped: dropped += 1
        }
    }
}
