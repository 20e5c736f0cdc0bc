// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// The temperature story of the EventDrivenSwift README, told one feature at a time.
//
// Run it with `swift run TemperatureDemo` (add `--trace trace.json --topology topology.mmd` to write
// the flow of section 13 to files). Every section uses a bus of its own and waits with
// drain(), waitUntilQuiet(timeout:), streams and semaphores, never with sleeps, so it prints the
// same lines every run (.ci/check-demo checks that).
import EventDrivenSwift

print("EventDrivenSwift, the temperature story. Run it with: swift run TemperatureDemo")
print("Its source is Sources/TemperatureDemo, one file per section. Each section says what it shows,")
print("prints what happened, and explains every count of its bus's statistics. The output is the same")
print("every run; .ci/check-demo runs it several times and compares.")

try await eventThreadSection()
await prioritiesSection()
await latestOnlySection()
await schedulingSection()
await ownersSection()
await misuseSection()
await channelsSection()
await eventPoolSection()
await streamsSection()
await asyncHandlersSection()
await actorHandlersSection()
try await deadLettersSection()
try await observabilitySection(arguments: CommandLine.arguments)

print("")
print("Summary")
print("  Thirteen buses, one per section: EventThread and observers, batch order, interest, scheduling,")
print("  owners, misuse, channels/states/consumers, pools, streams, async and actor handlers, dead letters,")
print("  and the flow recorder.")
print("  The default bus EventCentral.shared was never used: \(EventCentral.shared.statistics.delivered) deliveries.")
let unexplained = unexplainedStatistics.withLock { $0 }
if unexplained.isEmpty {
    print("  Every statistic above was as its section explained.")
} else {
    print("  Statistics not as explained: \(unexplained.joined(separator: "; "))")
    exit(1)
}
