// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 12: dead letters — every event that did not reach a receiver, with the reason.

/// An event nobody listens to. Not private: a dead letter names its type, and a private type's name
/// carries an address that changes every run.
struct Gossip: Eventable {}

func deadLettersSection() async throws {
    section(
        12, "Dead letters: for await letter in bus.deadLetters()",
        "The stream of dead letters is made first (like any stream, it sees only what comes after).",
        "Then, one at a time: an event nobody listens to; a reading that waits 20 ms behind a busy",
        "thread for a listener that wants readings younger than 5 ms; a reading whose listener is",
        "removed while it waits; three readings for a stream that buffers only the newest one and",
        "is not being read.")
    let bus = EventBus.demo("DeadLetters")
    let letters = bus.deadLetters()
    let postman = Task {
        var lines: [String] = []
        for await letter in letters {
            let celsius = (letter.event as? TemperatureEvent).map { " \($0.temperatureInCelsius.celsius)" } ?? ""
            lines.append("\(letter.reason): \(letter.eventType)\(celsius)")
        }
        return lines  // ends when the bus shuts down
    }

    Gossip().queue(on: bus)

    let turnstile = Turnstile()
    bus.listen(Hold.self, executeOn: .listenerThread) { _, _ in turnstile.hold() }
    let fresh = bus.listen(
        TemperatureEvent.self, executeOn: .listenerThread, interestedIn: .youngerThan(.milliseconds(5))
    ) {
        _, _ in
    }
    Hold().queue(on: bus)
    await turnstile.entered()
    TemperatureEvent(temperatureInCelsius: 1).queue(on: bus)
    // Not a wait for anything: the reading must grow older than 5 ms before its turn comes.
    try await Task.sleep(for: .milliseconds(20))
    turnstile.release()
    await bus.drain()
    fresh.cancel()

    let removed = bus.listen(TemperatureEvent.self, executeOn: .listenerThread) { _, _ in }
    Hold().queue(on: bus)
    await turnstile.entered()
    TemperatureEvent(temperatureInCelsius: 2).queue(on: bus)
    removed.cancel()
    turnstile.release()
    await bus.drain()

    let unread = bus.events(of: TemperatureEvent.self, bufferingPolicy: .bufferingNewest(1))
    for celsius: Float in [3, 4, 5] { TemperatureEvent(temperatureInCelsius: celsius).queue(on: bus) }
    await bus.shutdown()
    var last: [Float] = []
    for await reading in unread { last.append(reading.temperatureInCelsius) }
    print("  the unread stream kept only \(last.map(\.celsius).joined(separator: ", "))")
    print("  dead letters, in the order they were posted:")
    for line in await postman.value { print("    \(line)") }
    printStatistics(
        of: bus,
        [
            "delivered": "the two Hold events, and 5 °C to the stream",
            "undelivered": "the Gossip nobody listened to",
            "expired": "1 °C, 20 ms old when its turn came",
            "discarded": "2 °C, whose listener was removed while it waited",
            "dropped": "3 and 4 °C, pushed out of the stream's one-event buffer",
        ])
}
