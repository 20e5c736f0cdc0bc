// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// The rows of the table in "Migrating from EventDrivenSwift 5.2" about `EventListener`: each
/// test is named after its row, uses the 5.2 README's spelling (`addListener(self, callback, …)`)
/// and checks what the row says we do.
@Suite("Migrating from EventDrivenSwift 5.2: listeners")
struct Migration52ListenerTests {
    // Checks main-queue identity with a queue-specific key: under `swift test` on Linux the main
    // queue may run on a worker thread, where `Thread.isMainThread` is false (see EventThreadTests).
    @Test("addListener(self, onTemperatureRatingEvent) runs in the registering caller's context, in order")
    @MainActor
    func addListener() async {
        _ = Migration52ListenerTests.mainQueueKey
        let bus = EventBus(label: "migration52-addListener")
        let viewModel = TemperatureRatingViewModel()
        let listenerHandle = TemperatureRatingEvent.addListener(
            viewModel, viewModel.onTemperatureRatingEvent, on: bus)
        for reading in 0..<50 { TemperatureRatingEvent(temperatureInCelsius: Float(reading)).queue(on: bus) }
        // The main actor is free while this test awaits, so the main queue runs the callbacks.
        await bus.drain()
        #expect(viewModel.temperatures == (0..<50).map(Float.init))
        let deliveries = viewModel.deliveries.values
        #expect(deliveries.allSatisfy { $0.onMainQueue }, "registered from @MainActor code: on the main actor")
        listenerHandle.cancel()
    }

    @Test("interestedIn: .custom, customFilter: gets event, priority and dispatch time, and decides per event")
    func customFilter() async {
        let bus = EventBus(label: "migration52-custom")
        let viewModel = FilteringViewModel()
        let before = DispatchTime.now()
        let listenerHandle = TemperatureRatingEvent.addListener(
            viewModel, viewModel.onTemperatureRatingEvent, executeOn: .listenerThread, interestedIn: .custom,
            customFilter: viewModel.onTemperatureRatingEventFilter, on: bus)
        for reading in [40, 60, 50, 51] as [Float] {
            TemperatureRatingEvent(temperatureInCelsius: reading).queue(on: bus, priority: .low)
        }
        await bus.drain()
        let after = DispatchTime.now()
        #expect(viewModel.temperatures == [40, 50], "above 50 degrees, the listener is not interested")
        let filtered = viewModel.filtered.values
        #expect(filtered.map(\.temperature) == [40, 60, 50, 51])
        #expect(filtered.allSatisfy { $0.priority == .low && $0.dispatchTime >= before && $0.dispatchTime <= after })
        #expect(bus.statistics.filtered == 2)
        listenerHandle.cancel()
    }

    @Test(
        "in a @MainActor view model: the unapplied method runs on the main actor whatever executeOn says; a nonisolated filter"
    )
    @MainActor
    func mainActorViewModel() async {
        _ = Migration52ListenerTests.mainQueueKey
        let bus = EventBus(label: "migration52-mainactor")
        let viewModel = MainActorViewModel()
        // As 5.2's README writes it: the bound method, with `.listenerThread` (the unapplied
        // method, `MainActorViewModel.onTemperatureRatingEvent`, runs on the main actor too).
        let listenerHandle = TemperatureRatingEvent.addListener(
            viewModel, viewModel.onTemperatureRatingEvent, executeOn: .listenerThread, interestedIn: .custom,
            customFilter: viewModel.onTemperatureRatingEventFilter, on: bus)
        for reading in [40, 60, 50] as [Float] { TemperatureRatingEvent(temperatureInCelsius: reading).queue(on: bus) }
        await bus.drain()
        #expect(viewModel.temperatures == [40, 50], "above 50 degrees, the filter says no")
        #expect(viewModel.onMainQueue.allSatisfy { $0 }, "on the main actor, although executeOn says .listenerThread")
        listenerHandle.cancel()
    }

    @Test("addListener(…, executeOn: .listenerThread) runs on the bus's one listener thread, in order")
    func listenerThread() async {
        let bus = EventBus(label: "migration52-listenerThread")
        let viewModel = TemperatureRatingViewModel()
        let other = TemperatureRatingViewModel()
        let listenerHandle = TemperatureRatingEvent.addListener(
            viewModel, viewModel.onTemperatureRatingEvent, executeOn: .listenerThread, on: bus)
        let otherHandle = TemperatureRatingEvent.addListener(
            other, other.onTemperatureRatingEvent, executeOn: .listenerThread, on: bus)
        for reading in 0..<200 { TemperatureRatingEvent(temperatureInCelsius: Float(reading)).queue(on: bus) }
        await bus.drain()
        #expect(viewModel.temperatures == (0..<200).map(Float.init))
        #expect(other.temperatures == (0..<200).map(Float.init))
        let threads = Set((viewModel.deliveries.values + other.deliveries.values).map(\.thread))
        #expect(threads.count == 1, "every .listenerThread listener of the bus shares one thread")
        #expect(!threads.contains(coreThreadID()))
        listenerHandle.cancel()
        otherHandle.cancel()
    }

    @Test("addListener(…, executeOn: .taskThread) runs each callback in a task")
    func taskThread() async {
        let bus = EventBus(label: "migration52-task")
        let viewModel = TemperatureRatingViewModel()
        let listenerHandle = TemperatureRatingEvent.addListener(
            viewModel, viewModel.onTemperatureRatingEvent, executeOn: .taskThread, on: bus)
        for reading in 0..<100 { TemperatureRatingEvent(temperatureInCelsius: Float(reading)).queue(on: bus) }
        await bus.drain()
        #expect(viewModel.temperatures.sorted() == (0..<100).map(Float.init))
        #expect(viewModel.deliveries.values.allSatisfy { $0.inTask })
        listenerHandle.cancel()
    }

    @Test("listenerHandle.cancel() stops the listener; cancel() is its native name")
    func removeListener() async {
        let bus = EventBus(label: "migration52-remove")
        let viewModel = TemperatureRatingViewModel()
        let other = TemperatureRatingViewModel()
        var listenerHandle: EventListenerHandling? = TemperatureRatingEvent.addListener(
            viewModel, viewModel.onTemperatureRatingEvent, executeOn: .synchronous, on: bus)
        let otherHandle = TemperatureRatingEvent.addListener(
            other, other.onTemperatureRatingEvent, executeOn: .synchronous, on: bus)
        TemperatureRatingEvent(temperatureInCelsius: 1).queue(on: bus)
        SeedSpellings.remove(listenerHandle)  // `listenerHandle?.remove()`, deprecated
        otherHandle.cancel()
        TemperatureRatingEvent(temperatureInCelsius: 2).queue(on: bus)
        await bus.drain()
        #expect(viewModel.temperatures == [1])
        #expect(other.temperatures == [1])
        #expect(!otherHandle.isActive)
        #expect(bus.subscriberCount(for: TemperatureRatingEvent.self) == 0)
        listenerHandle = nil
    }

    @Test("interestedIn: .latestOnly runs only for the newest event of a backlog and counts the rest as superseded")
    func latestOnly() async {
        let bus = EventBus(label: "migration52-latest")
        let gate = CoreGate()
        let hold = bus.listen(Hold.self, executeOn: .listenerThread) { _, _ in gate.block() }
        let viewModel = TemperatureRatingViewModel()
        let listenerHandle = TemperatureRatingEvent.addListener(
            viewModel, viewModel.onTemperatureRatingEvent, executeOn: .listenerThread, interestedIn: .latestOnly,
            on: bus)
        Hold().queue(on: bus)
        await gate.waitUntilEntered()
        for reading in [10, 11, 12, 13] as [Float] {
            TemperatureRatingEvent(temperatureInCelsius: reading).queue(on: bus)
        }
        gate.open()
        await bus.drain()
        #expect(viewModel.temperatures == [13])
        #expect(bus.statistics.superseded == 3)
        hold.cancel()
        listenerHandle.cancel()
    }

    @Test(
        "interestedIn: .youngerThan, maximumAge: 1 * 1_000_000_000 (or .youngerThan(.seconds(1))) skips events older than a second"
    )
    func youngerThan() async {
        let bus = EventBus(label: "migration52-age")
        let arrived = DispatchSemaphore(value: 0)
        let probe = bus.listen(TemperatureRatingEvent.self, executeOn: .synchronous) { _, _ in arrived.signal() }
        let viewModel = TemperatureRatingViewModel()
        let listenerHandle = TemperatureRatingEvent.addListener(
            viewModel, viewModel.onTemperatureRatingEvent, executeOn: .listenerThread, interestedIn: .youngerThan,
            maximumAge: 1 * 1_000_000_000, on: bus)
        let native = TemperatureRatingViewModel()
        let nativeHandle = TemperatureRatingEvent.addListener(
            native, native.onTemperatureRatingEvent, executeOn: .listenerThread,
            interestedIn: .youngerThan(.seconds(1)),
            on: bus)
        // A scheduled event's dispatch time is its due time: one due two seconds ago is two
        // seconds old when it is delivered.
        TemperatureRatingEvent(temperatureInCelsius: 1).scheduleQueue(at: .now() - .seconds(2), on: bus)
        await coreWait(arrived)
        TemperatureRatingEvent(temperatureInCelsius: 2).queue(on: bus)
        await bus.drain()
        #expect(viewModel.temperatures == [2])
        #expect(native.temperatures == [2], "the native form means the same")
        #expect(bus.statistics.expired == 2)
        probe.cancel()
        listenerHandle.cancel()
        nativeHandle.cancel()
    }
}

extension Migration52ListenerTests {
    struct TemperatureRatingEvent: Eventable {
        var temperatureInCelsius: Float
    }

    /// Holds the bus's listener thread, so that what is dispatched meanwhile waits.
    struct Hold: Eventable {}

    struct Delivery: Sendable {
        let temperature: Float
        let onMainQueue: Bool
        let inTask: Bool
        let thread: UInt
    }

    /// The 5.2 README's view model, without `ObservableObject`: it records each callback.
    final class TemperatureRatingViewModel: Sendable {
        let deliveries = CoreRecorder<Delivery>()

        var temperatures: [Float] { deliveries.values.map(\.temperature) }

        func onTemperatureRatingEvent(
            _ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
        ) {
            deliveries.append(
                Delivery(
                    temperature: event.temperatureInCelsius,
                    onMainQueue: DispatchQueue.getSpecific(key: Migration52ListenerTests.mainQueueKey) == true,
                    inTask: withUnsafeCurrentTask { $0 != nil }, thread: coreThreadID()))
        }
    }

    /// The 5.2 README's view model with a custom filter: it records what the filter saw.
    final class FilteringViewModel: Sendable {
        struct Filtered: Sendable {
            let temperature: Float
            let priority: EventPriority
            let dispatchTime: DispatchTime
        }

        let shown = CoreRecorder<Float>()
        let filtered = CoreRecorder<Filtered>()

        var temperatures: [Float] { shown.values }

        func onTemperatureRatingEvent(
            _ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
        ) {
            shown.append(event.temperatureInCelsius)
        }

        func onTemperatureRatingEventFilter(
            _ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
        ) -> Bool {
            filtered.append(
                Filtered(temperature: event.temperatureInCelsius, priority: priority, dispatchTime: dispatchTime))
            if event.temperatureInCelsius > 50 { return false }
            return true
        }
    }

    /// The 5.2 README's view model as SwiftUI code writes it today: main-actor isolated.
    @MainActor
    final class MainActorViewModel {
        var temperatures: [Float] = []
        var onMainQueue: [Bool] = []

        func onTemperatureRatingEvent(
            _ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
        ) {
            temperatures.append(event.temperatureInCelsius)
            onMainQueue.append(DispatchQueue.getSpecific(key: Migration52ListenerTests.mainQueueKey) == true)
        }

        /// `nonisolated`: a filter runs wherever the delivery decides, and reads only the event.
        nonisolated func onTemperatureRatingEventFilter(
            _ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
        ) -> Bool {
            event.temperatureInCelsius <= 50
        }
    }

    /// Marks the main queue, to tell main-queue (main actor) code apart on any platform.
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
}
