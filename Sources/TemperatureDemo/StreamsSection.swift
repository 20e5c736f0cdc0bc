// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 9: events as an AsyncSequence.

func streamsSection() async {
    section(
        9, "Streams: for await … in bus.events(of:)",
        "A stream is subscribed when it is made, not when iteration starts, so it is made before the",
        "readings are dispatched: made later, it would miss them. A stream has no batches: it yields",
        "in dispatch order, whatever the priority or queue/stack. It ends when the bus shuts down,",
        "after yielding what it had buffered.")
    let bus = EventBus.demo("Streams")
    let readings = bus.events(of: TemperatureEvent.self)  // subscribed here, before any dispatch
    let consumer = Task {
        var seen: [Float] = []
        for await reading in readings { seen.append(reading.temperatureInCelsius) }
        return seen  // the loop ends when the bus shuts down
    }
    TemperatureEvent(temperatureInCelsius: 18).queue(on: bus, priority: .low)
    TemperatureEvent(temperatureInCelsius: 19).stack(on: bus, priority: .highest)
    TemperatureEvent(temperatureInCelsius: 20).queue(on: bus)
    await bus.shutdown()
    let seen = await consumer.value
    print("  dispatched 18 °C (queue, low), 19 °C (stack, highest), 20 °C (queue, normal)")
    print("  the stream yielded \(seen.map(\.celsius).joined(separator: ", ")), then ended")
    printStatistics(of: bus, ["delivered": "the three readings, to the stream"])
}
