// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

/// The model-based run's checks of what it observed against the reference model: deliveries,
/// order, and the bus's accounting (SPEC R1, R4; issue 13).
extension ModelRun {
    func check() -> String? {
        var deliveredTotal = 0
        for (index, receiver) in receivers.enumerated() {
            let received = receiver.received.withLock { $0 }
            deliveredTotal += received.count
            let ids = received.map(\.id)
            let unique = Set(ids)
            if unique.count != ids.count { return "receiver \(index) (\(receiver.kind)) got duplicates" }
            let allowed = receiver.must.union(receiver.may).union(receiver.isActive ? Set(receiver.pending) : [])
            if let stray = unique.subtracting(allowed).first {
                return "receiver \(index) (\(receiver.kind)) got event \(stray), dispatched while it was not subscribed"
            }
            if let lost = receiver.must.subtracting(unique).first {
                return "receiver \(index) (\(receiver.kind)) never got event \(lost)"
            }
            if let discarded = receiver.discardedByStop, receiver.kind == .eventThread || receiver.kind == .pool,
                unique.count + discarded != receiver.must.count + receiver.may.count
            {
                return "\(receiver.kind) \(index) delivered \(unique.count) and discarded \(discarded) of "
                    + "\(receiver.must.count + receiver.may.count)"
            }
            if receiver.kind.isSerial && receiver.kind != .asyncHandler {
                var last: [Int: Int] = [:]
                for entry in received where entry.method == .queue {
                    let key = entry.producer * 8 + entry.priority.rawValue
                    if let previous = last[key], previous > entry.id {
                        return "receiver \(index) (\(receiver.kind)) broke D4: \(entry.id) after \(previous)"
                    }
                    last[key] = entry.id
                }
            }
            if receiver.kind == .pool, let divergence = checkPool(receiver, index: index) { return divergence }
            if receiver.kind == .asyncHandler {
                var last: [Int: Int] = [:]
                for entry in received {
                    if let previous = last[entry.producer], previous > entry.id {
                        return "async receiver \(index) broke dispatch order: \(entry.id) after \(previous)"
                    }
                    last[entry.producer] = entry.id
                }
            }
        }
        if let divergence = checkStates() { return divergence }
        // State deliveries count as deliveries; checkStates() has matched them with the model.
        deliveredTotal += stateDeliveries
        pairs += stateDeliveries
        deliveryCount = deliveredTotal
        let stats = bus.statistics
        if stats.delivered != deliveredTotal {
            return "statistics say \(stats.delivered) delivered, receivers got \(deliveredTotal)"
        }
        let accounted = stats.delivered + stats.discarded + stats.ownerReleased
        if accounted < pairs || accounted > pairs + zombiePairs {
            return "R1: \(accounted) deliveries accounted for, expected \(pairs)…\(pairs + zombiePairs) (\(stats))"
        }
        if stats.undelivered < undelivered {
            return "R1: \(stats.undelivered) undelivered counted, expected at least \(undelivered)"
        }
        return nil
    }

    /// After the shutdown: the counts are final and every outcome that is a dead letter was
    /// posted, one letter per count, whatever the receiver kind and path.
    func checkFinalAccounting() async -> String? {
        let stats = bus.statistics
        var posted: [DeadLetter.Reason: Int] = [:]
        for await letter in letters { posted[letter.reason, default: 0] += 1 }
        let counted: [DeadLetter.Reason: Int] = [
            .undelivered: stats.undelivered, .expired: stats.expired, .superseded: stats.superseded,
            .ownerReleased: stats.ownerReleased, .dropped: stats.dropped, .discarded: stats.discarded,
            .failed: stats.failed,
        ]
        for (reason, count) in counted {
            let letters = posted[reason, default: 0]
            if letters != count {
                return "R4: \(letters) dead letters '\(reason)', \(count) counted (\(stats))"
            }
        }
        if bus.statistics != stats { return "R1: counts changed after shutdown returned" }
        let outcomes = stats.delivered + stats.discarded + stats.ownerReleased + stats.filtered
        if outcomes < pairs || outcomes > pairs + zombiePairs + stats.filtered {
            return "R1: \(outcomes) outcomes after shutdown, expected \(pairs)…\(pairs + zombiePairs) (\(stats))"
        }
        return nil
    }
}
