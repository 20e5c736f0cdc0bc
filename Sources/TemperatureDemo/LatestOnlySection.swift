// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 3: interest — .latestOnly skips a backlog, .custom declines what it does not want.

func latestOnlySection() async {
    section(
        3, "Interest: .latestOnly skips a backlog, .custom filters",
        "A display only needs the newest reading. While the listener thread is held busy, four",
        "readings queue up behind it; the .latestOnly listener then runs once, for the newest, and",
        "the three it skipped are counted as superseded. A .custom listener on the same readings",
        "takes only those of 12 °C or more; the two it declines are counted as filtered.")
    let bus = EventBus.demo("LatestOnly")
    let turnstile = Turnstile()
    let latest = LockedValue<[Float]>([])
    let warmOnes = LockedValue<[Float]>([])
    bus.listen(Hold.self, executeOn: .listenerThread) { _, _ in turnstile.hold() }
    bus.listen(TemperatureEvent.self, executeOn: .listenerThread, interestedIn: .latestOnly) { reading, _ in
        latest.withLock { $0.append(reading.temperatureInCelsius) }
    }
    bus.listen(
        TemperatureEvent.self, executeOn: .listenerThread,
        interestedIn: .custom { (reading: TemperatureEvent, _) in reading.temperatureInCelsius >= 12 }
    ) { reading, _ in
        warmOnes.withLock { $0.append(reading.temperatureInCelsius) }
    }
    Hold().queue(on: bus)
    await turnstile.entered()
    let readings: [Float] = [10, 11, 12, 13]
    for reading in readings { TemperatureEvent(temperatureInCelsius: reading).queue(on: bus) }
    turnstile.release()
    await bus.drain()
    print("  queued behind the busy thread: \(readings.map(\.celsius).joined(separator: ", "))")
    print("  the .latestOnly listener ran for: \(latest.withLock { $0 }.map(\.celsius).joined(separator: ", "))")
    print("  the .custom listener ran for: \(warmOnes.withLock { $0 }.map(\.celsius).joined(separator: ", "))")
    await bus.shutdown()
    printStatistics(
        of: bus,
        [
            "delivered": "the Hold event, 13 °C to the .latestOnly listener, 12 and 13 °C to the .custom one",
            "superseded": "10, 11 and 12 °C: a newer reading was waiting when the .latestOnly listener's turn came",
            "filtered": "10 and 11 °C, declined by the .custom filter",
        ])
}
