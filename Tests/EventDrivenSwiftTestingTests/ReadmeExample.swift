// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// The code block of the README's section "Testing your code" (proposed with issue 17's test
// kit), unchanged below this comment, so that it compiles and runs. `TemperatureEvent` is the
// README's (here, the one in ArticleExamples.swift).

import EventDrivenSwift
import EventDrivenSwiftTesting
import Testing

struct HeatAlarm: Eventable, Equatable { var temperatureInCelsius: Float }

@Test func heatAlarms() async throws {
    let bus = EventBus.deterministic()  // every listener runs before queue returns
    let alarms = bus.record(HeatAlarm.self)  // records from now on: create it first
    bus.listen(TemperatureEvent.self) { [weak bus] reading, _ in  // the code under test
        guard let bus, reading.temperatureInCelsius > 30 else { return }
        HeatAlarm(temperatureInCelsius: reading.temperatureInCelsius).queue(on: bus, priority: .high)
    }
    TemperatureEvent(temperatureInCelsius: 35).queue(on: bus)
    #expect(alarms.events == [HeatAlarm(temperatureInCelsius: 35)])
    #expect(alarms.metadata.first?.priority == .high)

    let clock = ManualClock()  // time moves only when the test moves it
    clock.schedule(TemperatureEvent(temperatureInCelsius: 40), on: bus, after: .seconds(30))
    clock.advance(by: .seconds(30))  // dispatched and handled here
    #expect(try await alarms.waitFor(count: 2).last?.temperatureInCelsius == 40)
}
