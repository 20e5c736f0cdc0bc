// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// How the demo narrates: a title and explanation per section, and each bus's statistics with
// the reason for every count.

/// Every count of ``EventBusStatistics`` with its name, in the order the type declares them.
private func counts(of statistics: EventBusStatistics) -> [(name: String, count: Int)] {
    [
        ("delivered", statistics.delivered), ("undelivered", statistics.undelivered),
        ("expired", statistics.expired), ("superseded", statistics.superseded),
        ("filtered", statistics.filtered), ("discarded", statistics.discarded),
        ("ownerReleased", statistics.ownerReleased), ("rejected", statistics.rejected),
        ("dropped", statistics.dropped), ("failed", statistics.failed),
    ]
}

/// Sections whose statistics did not match what they explained; the demo exits with 1 if any.
let unexplainedStatistics = LockedValue<[String]>([])

/// Prints the counts of `bus` that are not zero, each with the reason the section gives for it.
///
/// `reasons` names every count the section expects to be non-zero. A non-zero count without a
/// reason, or a reason for a count that stayed zero, is printed as such and makes the demo fail,
/// so that the explanations stay true as the library changes.
func printStatistics(of bus: EventBus, _ reasons: KeyValuePairs<String, String>) {
    let explained = Dictionary(uniqueKeysWithValues: reasons.map { ($0.key, $0.value) })
    print("  statistics of bus \"\(bus.label)\":")
    for (name, count) in counts(of: bus.statistics) {
        switch (count, explained[name]) {
        case (0, nil):
            continue
        case (0, .some):
            print("    \(name) 0, but the section expected some: NOT AS EXPLAINED")
            unexplainedStatistics.withLock { $0.append("\(bus.label): \(name)") }
        case (_, let reason?):
            print("    \(name) \(count): \(reason)")
        case (_, nil):
            print("    \(name) \(count): NOT EXPLAINED")
            unexplainedStatistics.withLock { $0.append("\(bus.label): \(name)") }
        }
    }
}

/// Prints a section's title and the sentences that say what it shows.
func section(_ number: Int, _ title: String, _ explanation: String...) {
    print("")
    print("\(number). \(title)")
    for line in explanation { print("   \(line)") }
}
