// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// A user's module: it imports EventDrivenSwift as any app would (no `@testable`), is compiled
// in Swift 6 language mode with complete concurrency checking, and must build with zero
// warnings (SPEC A4).
import EventDrivenSwift
import Testing

struct TemperatureEvent: Eventable {
    var temperatureInCelsius: Float
}

struct AlarmEvent: Eventable {
    let message: String
}

struct NobodyListens: Eventable {}

final class TemperatureProcessor: EventThread, @unchecked Sendable {  // state is in the thread-safe `readings`
    let readings = Readings()

    override func registerEventListeners() {
        addEventCallback(onTemperature, forEventType: TemperatureEvent.self)
    }

    func onTemperature(_ event: TemperatureEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        readings.append(event.temperatureInCelsius)
    }
}

final class Readings: Sendable {
    private let values = LockedValue<[Float]>([])
    func append(_ value: Float) { values.withLock { $0.append(value) } }
    var all: [Float] { values.withLock { $0 } }
}

/// `@ThreadSafeSemaphore` in a type that is not itself `Sendable`, as the original README uses it.
final class Tally {
    @ThreadSafeSemaphore var count = 0
    func bump() { _count.withLock { $0 += 1 } }
}

final class Display: Sendable {
    let shown = Readings()
    func onTemperature(_ event: TemperatureEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        shown.append(event.temperatureInCelsius)
    }
}

actor Thermostat {
    var readings: [Float] = []
    func record(_ value: Float) { readings.append(value) }
}

@MainActor final class MainScreen {
    var lines: [String] = []
}

final class AlarmLog: EventConsumer {
    let count = Readings()
    var willConsume: [any Eventable.Type] { [AlarmEvent.self] }
    func consume(_ event: any Eventable) { count.append(1) }
}

struct Failure: Error {}

@Suite("A4: a user's module in Swift 6 mode")
struct UserModuleTests {
    @Test("A4/E1/D1/L1/T1: listeners, threads and dispatch from a user's module")
    func listenersAndThreads() async {
        let bus = EventBus(label: "user")
        let processor = TemperatureProcessor(bus: bus)
        let display = Display()
        let handle = TemperatureEvent.addListener(display, Display.onTemperature, executeOn: .listenerThread, on: bus)
        bus.listen(TemperatureEvent.self, executeOn: .synchronous) { event, metadata in
            _ = (event.temperatureInCelsius, metadata.priority, metadata.dispatchTime)
        }
        TemperatureEvent(temperatureInCelsius: 21).queue(on: bus)
        TemperatureEvent(temperatureInCelsius: 22).stack(on: bus, priority: .high)
        bus.dispatchNow(TemperatureEvent(temperatureInCelsius: 23))
        await bus.drain()
        #expect(processor.readings.all.count == 3)
        #expect(display.shown.all.count == 3)
        handle.cancel()
        #expect(processor.cancel() == 0)
        let tally = Tally()
        tally.bump()
        #expect(tally.count == 1)
        await bus.shutdown()
    }

    @Test("A1/A2/A3/R2: streams, async, actor, main-actor and throwing handlers from a user's module")
    func concurrencySurface() async {
        let bus = EventBus(label: "user.async")
        let errors = Readings()
        bus.setErrorHandler { _ in errors.append(1) }
        let stream = bus.events(of: TemperatureEvent.self, bufferingPolicy: .bufferingNewest(10))
        let thermostat = Thermostat()
        bus.listen(TemperatureEvent.self, on: thermostat) { thermostat, event in
            thermostat.readings.append(event.temperatureInCelsius)
        }
        let screen = MainScreen()
        bus.listenAsync(TemperatureEvent.self) { @MainActor event in
            screen.lines.append("\(event.temperatureInCelsius)")
        }
        bus.listenAsync(TemperatureEvent.self) { _ in throw Failure() }
        bus.listen(TemperatureEvent.self, executeOn: .listenerThread) {
            (_: TemperatureEvent, _: EventMetadata) throws in
            throw Failure()
        }
        for value in 0..<5 { TemperatureEvent(temperatureInCelsius: Float(value)).queue(on: bus) }
        await bus.drain()
        #expect(await thermostat.readings == [0, 1, 2, 3, 4])
        #expect(await screen.lines.count == 5)
        #expect(bus.statistics.failed == 10)
        #expect(errors.all.count == 10)
        await bus.shutdown()
        var streamed: [Float] = []
        for await event in stream { streamed.append(event.temperatureInCelsius) }
        #expect(streamed == [0, 1, 2, 3, 4])
    }

    @Test("R1/R4/R5/S2: dead letters, scheduling, statistics and shutdown from a user's module")
    func reliabilitySurface() async {
        let bus = EventBus(label: "user.reliability")
        let letters = bus.deadLetters()
        NobodyListens().queue(on: bus)
        let scheduled = TemperatureEvent(temperatureInCelsius: 1).scheduleQueue(at: .now() + .seconds(3_600), on: bus)
        await bus.shutdown(immediately: true)
        #expect(scheduled.isCancelled)
        var reasons: [DeadLetter.Reason] = []
        for await letter in letters { reasons.append(letter.reason) }
        #expect(reasons == [.undelivered])
        let statistics: EventBusStatistics = bus.statistics
        #expect(statistics.undelivered == 1)
        #expect(bus.isShutDown)
    }

    @Test("C1/C3/W1/P1: channels, states, consumers and pools from a user's module")
    func otherSurfaces() async {
        let bus = EventBus(label: "user.more")
        let channel = EventChannel<String>(label: "chat", key: 7)
        let received = Readings()
        let subscription = bus.subscribe(channel, on: .synchronous) { (_: String) in received.append(1) }
        bus.publish(channel, "hello")
        subscription.cancel()
        let mode = EventState<Int>(label: "mode")
        _ = bus.set(mode, to: 2)
        #expect(bus.value(of: mode) == 2)
        let log = AlarmLog()
        _ = bus.register(log)
        AlarmEvent(message: "fire").queue(on: bus)
        let pool = EventPool<TemperatureProcessor>(capacity: 2, bus: bus)
        TemperatureEvent(temperatureInCelsius: 5).queue(on: bus)
        await pool.drain()
        await bus.drain()
        #expect(received.all.count == 1)
        #expect(log.count.all.count == 1)
        _ = pool.stop(draining: true)
        await bus.shutdown()
    }
}
