// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// What a bus decided for its (event, subscriber) pairs, with the dead letters it posted, read
/// once its shutdown has returned: the counts must be final then, and every letter posted.
struct AccountingLedger {
    let statistics: EventBusStatistics
    let letters: [DeadLetter.Reason: Int]

    /// Shuts `bus` down (`immediately` or not) and collects what `stream` of its dead letters
    /// received; the stream must end with the shutdown.
    static func close(
        _ bus: EventBus, immediately: Bool = false, letters stream: AsyncStream<DeadLetter>
    ) async -> AccountingLedger {
        await bus.shutdown(immediately: immediately)
        let statistics = bus.statistics
        var letters: [DeadLetter.Reason: Int] = [:]
        for await letter in stream { letters[letter.reason, default: 0] += 1 }
        return AccountingLedger(statistics: statistics, letters: letters)
    }

    /// Every (event, subscriber) pair's outcome, plus the events nobody listened to.
    var outcomes: Int {
        let s = statistics
        return s.delivered + s.expired + s.superseded + s.filtered + s.ownerReleased + s.discarded + s.dropped
            + s.failed + s.undelivered
    }

    /// Checks that the dead letters by reason are the matching counters.
    func expectLettersMatchCounters(sourceLocation: SourceLocation = #_sourceLocation) {
        let s = statistics
        let expected: [DeadLetter.Reason: Int] = [
            .undelivered: s.undelivered, .expired: s.expired, .superseded: s.superseded,
            .ownerReleased: s.ownerReleased, .dropped: s.dropped, .discarded: s.discarded, .failed: s.failed,
        ]
        for (reason, count) in expected {
            #expect(letters[reason, default: 0] == count, "dead letters '\(reason)'", sourceLocation: sourceLocation)
        }
    }
}
