// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// The code of the DocC article "Testing Your Code", block for block: `articleBlocksAreHere`
// checks that every Swift block of the article appears here, so that the article's code compiles
// and its tests run.

import EventDrivenSwift
import EventDrivenSwiftTesting
import Foundation
import Testing

struct TemperatureEvent: Eventable, Equatable {
    var temperatureInCelsius: Float
}

struct OverheatAlarm: Eventable, Equatable {
    var temperatureInCelsius: Float
}

final class Thermostat: Sendable {
    init(bus: EventBus) {
        bus.listen(TemperatureEvent.self) { [weak bus] reading, _ in
            guard let bus, reading.temperatureInCelsius > 30 else { return }
            OverheatAlarm(temperatureInCelsius: reading.temperatureInCelsius).queue(on: bus, priority: .high)
        }
    }
}

@Test func alarmsAboveThirty() async throws {
    let bus = EventBus(label: "test")
    let alarms = bus.record(OverheatAlarm.self)
    _ = Thermostat(bus: bus)

    TemperatureEvent(temperatureInCelsius: 25).queue(on: bus)
    TemperatureEvent(temperatureInCelsius: 35).queue(on: bus)

    let alarm = try await alarms.next()
    #expect(alarm.temperatureInCelsius == 35)
    #expect(alarms.metadata.first?.priority == .high)
    #expect(alarms.receivedNone { $0.temperatureInCelsius < 30 })
    await bus.shutdown()
}

@Test func twoReadingsRaiseTwoAlarms() async throws {
    let bus = EventBus(label: "test")
    let alarms = bus.record(OverheatAlarm.self)
    _ = Thermostat(bus: bus)

    TemperatureEvent(temperatureInCelsius: 31).queue(on: bus)
    TemperatureEvent(temperatureInCelsius: 40).queue(on: bus)

    let both = try await alarms.waitFor(count: 2, timeout: .seconds(30))
    #expect(both.map(\.temperatureInCelsius) == [31, 40])
    await bus.shutdown()
}

@Test func alarmsAboveThirtyAtOnce() {
    let bus = EventBus.deterministic()
    let alarms = bus.record(OverheatAlarm.self)
    _ = Thermostat(bus: bus)

    TemperatureEvent(temperatureInCelsius: 35).queue(on: bus)

    #expect(alarms.events == [OverheatAlarm(temperatureInCelsius: 35)])
}

struct ReminderEvent: Eventable {}

struct Reminders: Sendable {
    let schedule: @Sendable (ReminderEvent, Duration) -> Void

    func remind(in delay: Duration) {
        schedule(ReminderEvent(), delay)
    }
}

func productionReminders(bus: EventBus) -> Reminders {
    Reminders { event, delay in
        event.schedule(after: delay, on: bus)
    }
}

@Test func remindsAfterThirtySeconds() {
    let bus = EventBus.deterministic()
    let clock = ManualClock()
    let reminders = bus.record(ReminderEvent.self)
    let service = Reminders { event, delay in clock.schedule(event, on: bus, after: delay) }

    service.remind(in: .seconds(30))
    clock.advance(by: .seconds(29))
    #expect(reminders.isEmpty)
    clock.advance(by: .seconds(1))
    #expect(reminders.count == 1)
}

final class FreshReadings: Sendable {
    private let shown = LockedValue<[Float]>([])
    var values: [Float] { shown.withLock { $0 } }

    init(bus: EventBus) {
        bus.listen(TemperatureEvent.self, interestedIn: .youngerThan(.seconds(1))) { [shown] reading, _ in
            shown.withLock { $0.append(reading.temperatureInCelsius) }
        }
    }
}

@Test func staleReadingsAreSkipped() {
    let bus = EventBus.deterministic()
    let clock = ManualClock()
    let fresh = FreshReadings(bus: bus)

    clock.dispatch(TemperatureEvent(temperatureInCelsius: 20), on: bus, age: .seconds(5))
    clock.dispatch(TemperatureEvent(temperatureInCelsius: 21), on: bus, age: .milliseconds(10))

    #expect(fresh.values == [21])
    #expect(bus.statistics.expired == 1)
}
