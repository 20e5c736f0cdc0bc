// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 11: handlers isolated to an actor.

/// Keeps the readings it is given; only its own isolation touches them.
actor Thermostat {
    private(set) var readings: [Float] = []
    func record(_ celsius: Float) { readings.append(celsius) }
}

func actorHandlersSection() async {
    section(
        11, "Actor handlers: bus.listen(E.self, on: actor) { actor, event in … }",
        "The handler runs isolated to the thermostat, so it may touch the actor's state without",
        "await; readings reach it one at a time, in dispatch order. The actor is held weakly.")
    let bus = EventBus.demo("ActorHandlers")
    let thermostat = Thermostat()
    bus.listen(TemperatureEvent.self, on: thermostat) { thermostat, reading in
        thermostat.record(reading.temperatureInCelsius)
    }
    for celsius: Float in [20.5, 21, 21.5] { TemperatureEvent(temperatureInCelsius: celsius).queue(on: bus) }
    await bus.drain()
    print("  the thermostat recorded \(await thermostat.readings.map(\.celsius).joined(separator: ", "))")
    await bus.shutdown()
    printStatistics(of: bus, ["delivered": "the three readings, to the thermostat"])
}
