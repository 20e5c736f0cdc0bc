// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation

// Section 13: seeing the flow — an interceptor records every dispatch and delivery; the recorder
// writes a trace for Perfetto and draws who talks to whom.

/// Rates every reading and dispatches the rating.
final class RatingThread: EventThread, @unchecked Sendable {  // no stored state of its own
    override func registerEventListeners() {
        addEventCallback(TemperatureEvent.self) { [bus] reading, _ in
            TemperatureRatingEvent(
                temperatureInCelsius: reading.temperatureInCelsius,
                temperatureRating: .fromTemperature(reading.temperatureInCelsius)
            ).queue(on: bus)
        }
    }
}

/// Shows ratings; it owns the display's listener.
final class RatingDisplay: Sendable {}

/// Would show wind readings, which nobody sends.
final class WindDisplay: Sendable {}

struct WindEvent: Eventable {}

func observabilitySection(arguments: [String]) async throws {
    section(
        13, "Seeing the flow: bus.addInterceptor(EventFlowRecorder())",
        "An interceptor sees every dispatch and every delivery. The flow recorder keeps the last ones",
        "and draws them: a trace for Perfetto, and the topology of who sends what to whom. Three",
        "readings go to a RatingThread, which sends each rating on to a display on the listener",
        "thread; a Gossip goes nowhere; a wind display waits for wind readings nobody sends.")
    let bus = EventBus.demo("Observed")
    let recorder = EventFlowRecorder()
    bus.addInterceptor(recorder)
    let rater = RatingThread(bus: bus)
    let display = RatingDisplay()
    let wind = WindDisplay()
    bus.listen(TemperatureRatingEvent.self, owner: display, executeOn: .listenerThread) { _, _ in }
    bus.listen(WindEvent.self, owner: wind, executeOn: .listenerThread) { _, _ in }
    for celsius: Float in [4, 18, 30] { TemperatureEvent(temperatureInCelsius: celsius).queue(on: bus) }
    Gossip().queue(on: bus)
    // Quiet: the readings handled, and the ratings the RatingThread sent meanwhile too.
    try await bus.waitUntilQuiet()
    print("  the topology, as Mermaid (GitHub draws it; topology.dot has the same as Graphviz):")
    for line in recorder.topology().mermaid.split(separator: "\n") { print("    \(line)") }
    let deliveries = recorder.records.filter { if case .delivery = $0 { true } else { false } }.count
    print("  the recorder kept \(recorder.records.count) records: 7 dispatches, \(deliveries) deliveries, and the")
    print("  Gossip finding no receiver")
    try write(recorder, arguments: arguments)
    withExtendedLifetime((rater, display, wind)) {}
    printStatistics(
        of: bus,
        [
            "delivered": "three readings to the RatingThread, three ratings to the display",
            "undelivered": "the Gossip nobody listened to",
        ])
}

/// Writes the trace and the topology where `--trace` and `--topology` say, if they do.
private func write(_ recorder: EventFlowRecorder, arguments: [String]) throws {
    func value(of option: String) -> String? {
        guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
    let trace = value(of: "--trace")
    let topology = value(of: "--topology")
    if trace == nil && topology == nil {
        print("  run with --trace trace.json --topology topology.mmd to write them to files")
    }
    if let trace {
        try recorder.writeChromeTrace(to: URL(fileURLWithPath: trace))
        print("  wrote the trace to \(trace): open https://ui.perfetto.dev and choose \"Open trace file\"")
        print("  (or chrome://tracing and \"Load\"): a track per thread, a slice per handler, arrows from")
        print("  each dispatch to its deliveries")
    }
    if let topology {
        let text = topology.hasSuffix(".dot") ? recorder.topology().dot : recorder.topology().mermaid
        try text.write(toFile: topology, atomically: true, encoding: .utf8)
        print("  wrote the topology to \(topology) (Mermaid, or Graphviz DOT for a .dot file)")
    }
}
