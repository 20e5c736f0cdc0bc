// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift  // alone, as a 5.2 codebase has it: it re-exports Dispatch and Foundation
import Testing

/// The rows of the table in "Migrating from EventDrivenSwift 5.2" about events, dispatching and
/// `EventThread`: each test is named after its row and checks what the row says we do.
///
/// `.serialized`: the README's spellings dispatch on ``EventCentral/shared``, and every
/// processor of this suite listens there for the suite's own event types.
@Suite("Migrating from EventDrivenSwift 5.2: events and threads", .serialized)
struct Migration52Tests {
    @Test("struct TemperatureEvent: Eventable is the same, and is Sendable")
    func eventableStruct() async {
        let bus = EventBus(label: "migration52-eventable")
        let processor = TemperatureProcessor(bus: bus)
        let event = TemperatureEvent(temperatureInCelsius: 23.25)
        let erased: any Sendable = event  // compiles only because Eventable refines Sendable
        #expect((erased as? any Eventable) != nil)
        event.queue(on: bus)
        await bus.drain()
        #expect(processor.temperatures == [23.25])
        processor.cancel()
    }

    @Test("queue() and queue(priority:) dispatch on EventCentral.shared, highest priority first")
    func queueWithPriority() async {
        let processor = TemperatureProcessor()
        let bus = EventBus(label: "migration52-queue")
        let local = TemperatureProcessor(bus: bus)
        Hold().queue()
        await processor.gate.waitUntilEntered()
        TemperatureEvent(temperatureInCelsius: 1).queue()
        TemperatureEvent(temperatureInCelsius: 2).queue(priority: .highest)
        TemperatureEvent(temperatureInCelsius: 3).queue(on: bus, priority: .low)
        processor.gate.open()
        await EventCentral.shared.drain()
        await bus.drain()
        #expect(processor.temperatures == [2, 1])
        #expect(processor.received.values.map(\.priority) == [.highest, .normal])
        #expect(local.temperatures == [3], "queue(on:) dispatches on that bus only")
        #expect(local.received.values.map(\.priority) == [.low])
        processor.cancel()
        local.cancel()
    }

    @Test("stack() and stack(priority:) dispatch on EventCentral.shared before queued events, last in first out")
    func stackWithPriority() async {
        let processor = TemperatureProcessor()
        Hold().queue()
        await processor.gate.waitUntilEntered()
        TemperatureEvent(temperatureInCelsius: 0).queue()
        TemperatureEvent(temperatureInCelsius: 1).stack()
        TemperatureEvent(temperatureInCelsius: 2).stack()
        TemperatureEvent(temperatureInCelsius: 3).stack(priority: .highest)
        processor.gate.open()
        await EventCentral.shared.drain()
        #expect(processor.temperatures == [3, 2, 1, 0])
        #expect(processor.received.values.map(\.priority) == [.highest, .normal, .normal, .normal])
        processor.cancel()
    }

    @Test("scheduleQueue(at:priority:) fires once due, with only import EventDrivenSwift, and can be cancelled")
    func scheduleQueue() async {
        let processor = TemperatureProcessor()
        let probe = MethodProbe()
        let temperatureEvent = TemperatureEvent(temperatureInCelsius: 4)
        let cancelled = temperatureEvent.scheduleQueue(
            at: DispatchTime.now() + TimeInterval().advanced(by: 3_600), priority: .highest)
        let handle = temperatureEvent.scheduleQueue(
            at: DispatchTime.now() + TimeInterval().advanced(by: 0.02), priority: .highest)
        cancelled.cancel()
        #expect(cancelled.isCancelled)
        cancelled.cancel()
        #expect(cancelled.isCancelled && !cancelled.hasFired, "a second cancel changes nothing")
        await coreWait(processor.arrived)
        await coreWait(probe.probed)  // the synchronous listener and the processor's thread run independently
        let received = processor.received.values
        #expect(received.map(\.temperature) == [4])
        #expect(received.first?.priority == .highest)
        #expect(received.first?.dispatchTime == handle.dueTime, "a scheduled event's dispatch time is its due time")
        #expect(probe.methods.values == [.queue])
        #expect(cancelled.isCancelled && !cancelled.hasFired)
        probe.cancel()
        processor.cancel()
    }

    @Test("scheduleStack(at:priority:) fires once due, through the stack")
    func scheduleStack() async {
        let processor = TemperatureProcessor()
        let probe = MethodProbe()
        let handle = TemperatureEvent(temperatureInCelsius: 5).scheduleStack(
            at: DispatchTime.now() + TimeInterval().advanced(by: 0.02), priority: .highest)
        await coreWait(processor.arrived)
        await coreWait(probe.probed)  // the synchronous listener and the processor's thread run independently
        #expect(processor.temperatures == [5])
        #expect(processor.received.values.first?.priority == .highest)
        #expect(processor.received.values.first?.dispatchTime == handle.dueTime)
        #expect(probe.methods.values == [.stack])
        probe.cancel()
        processor.cancel()
    }

    @Test("class TemperatureProcessor: EventThread registers its callbacks at init and runs them on its own thread")
    func eventThreadSubclass() async {
        let bus = EventBus(label: "migration52-thread")
        let processor = TemperatureProcessor(bus: bus)
        #expect(bus.subscriberCount(for: TemperatureEvent.self) == 1, "registerEventListeners() ran at init")
        for reading in 0..<20 { TemperatureEvent(temperatureInCelsius: Float(reading)).queue(on: bus) }
        await bus.drain()
        #expect(processor.temperatures == (0..<20).map(Float.init))
        let threads = Set(processor.received.values.map(\.thread))
        #expect(threads.count == 1 && !threads.contains(coreThreadID()), "one thread of its own")
        processor.cancel()
        #expect(bus.subscriberCount(for: TemperatureEvent.self) == 0)
    }

    @Test("addEventCallback returns an EventListenerHandle with a UUID token; removing it stops the callback")
    func addEventCallbackHandle() async {
        let bus = EventBus(label: "migration52-handle")
        let processor = TemperatureProcessor(bus: bus)
        let extra = CoreRecorder<Float>()
        let first = processor.addEventCallback(
            { event, _, _ in extra.append(event.temperatureInCelsius) }, forEventType: TemperatureEvent.self)
        let second = processor.addEventCallback(
            { event, _, _ in extra.append(-event.temperatureInCelsius) }, forEventType: TemperatureEvent.self)
        let tokens: [UUID] = [first.token, second.token]
        #expect(tokens[0] != tokens[1])
        TemperatureEvent(temperatureInCelsius: 1).queue(on: bus)
        await bus.drain()
        SeedSpellings.removeEventCallback(first, from: processor)  // deprecated
        second.cancel()
        #expect(!first.isActive && !second.isActive)
        TemperatureEvent(temperatureInCelsius: 2).queue(on: bus)
        await bus.drain()
        #expect(extra.values == [1, -1])
        #expect(processor.temperatures == [1, 2], "the other callbacks of the type stay")
        processor.cancel()
    }

    @Test("callback (_ event, _ priority: EventPriority, _ dispatchTime: DispatchTime) gets the dispatch's values")
    func callbackSignature() async {
        let bus = EventBus(label: "migration52-signature")
        let processor = TemperatureProcessor(bus: bus)
        let before = DispatchTime.now()
        TemperatureEvent(temperatureInCelsius: 1).queue(on: bus, priority: .low)
        TemperatureEvent(temperatureInCelsius: 2).stack(on: bus, priority: .high)
        await bus.drain()
        let after = DispatchTime.now()
        let received = processor.received.values
        #expect(Set(received.map(\.priority)) == [.low, .high])
        #expect(received.allSatisfy { $0.dispatchTime >= before && $0.dispatchTime <= after })
        let byTemperature = Dictionary(uniqueKeysWithValues: received.map { ($0.temperature, $0) })
        #expect(byTemperature[1]?.priority == .low && byTemperature[2]?.priority == .high)
        #expect(byTemperature[1]!.dispatchTime < byTemperature[2]!.dispatchTime, "the time of each dispatch")
        processor.cancel()
    }

    @Test("@ThreadSafeSemaphore var is the same, Sendable for a Sendable value, with withLock for updates")
    func threadSafeSemaphore() async {
        func requiresSendable<T: Sendable>(_ value: T) -> T { value }
        let thermometer = Thermometer()
        let wrapper = requiresSendable(thermometer.readingsWrapper)  // ThreadSafeSemaphore<Int> is Sendable
        thermometer.temperatureInCelsius = 21.5
        #expect(thermometer.temperatureInCelsius == 21.5)
        await coreOnThreads(4) { _ in
            for _ in 0..<1_000 { thermometer.addReading() }
        }
        #expect(thermometer.readings == 4_000)
        #expect(wrapper.wrappedValue == 4_000, "copies of the wrapper share one storage")
    }

    @Test("no central dispatch thread: queue() puts the event in the receiver's mailbox before it returns")
    func noCentralDispatchThread() async {
        let bus = EventBus(label: "migration52-central")
        let processor = TemperatureProcessor(bus: bus)
        Hold().queue(on: bus)
        await processor.gate.waitUntilEntered()
        #expect(processor.pendingEventCount == 1, "the Hold being handled")
        for reading in 0..<3 { TemperatureEvent(temperatureInCelsius: Float(reading)).queue(on: bus) }
        #expect(processor.pendingEventCount == 4, "no dispatcher in between: each event already waits in the mailbox")
        let central: EventBus = EventCentral.shared
        #expect(central.label == "EventCentral")
        processor.gate.open()
        await bus.drain()
        #expect(processor.temperatures == [0, 1, 2])
        processor.cancel()
    }
}

extension Migration52Tests {
    struct TemperatureEvent: Eventable {
        var temperatureInCelsius: Float
    }

    /// A synchronous listener on the shared bus that records how each `TemperatureEvent` was
    /// dispatched and signals once per event.
    struct MethodProbe {
        let methods = CoreRecorder<EventDispatchMethod>()
        let probed = DispatchSemaphore(value: 0)
        private let handle: EventListenerHandle

        init() {
            let methods = methods
            let probed = probed
            handle = EventCentral.shared.listen(TemperatureEvent.self, executeOn: .synchronous) { _, metadata in
                methods.append(metadata.method)
                probed.signal()
            }
        }

        func cancel() { handle.cancel() }
    }

    /// Holds a processor in its callback, so that what is dispatched meanwhile waits.
    struct Hold: Eventable {}

    struct Received: Sendable {
        let temperature: Float
        let priority: EventPriority
        let dispatchTime: DispatchTime
        let thread: UInt
    }

    /// The 5.2 README's processor, recording what its callback receives.
    final class TemperatureProcessor: EventThread, @unchecked Sendable {  // its state is lock-guarded recorders
        let received = CoreRecorder<Received>()
        let gate = CoreGate()
        /// Signalled after each temperature, from the processor's thread.
        let arrived = DispatchSemaphore(value: 0)

        var temperatures: [Float] { received.values.map(\.temperature) }

        override func registerEventListeners() {
            addEventCallback(onTemperatureEvent, forEventType: TemperatureEvent.self)
            addEventCallback(onHold, forEventType: Hold.self)
        }

        func onTemperatureEvent(_ event: TemperatureEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            received.append(
                Received(
                    temperature: event.temperatureInCelsius, priority: priority, dispatchTime: dispatchTime,
                    thread: coreThreadID()))
            arrived.signal()
        }

        func onHold(_ event: Hold, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            gate.block()
        }
    }

    /// The 5.2 README's thread-safe properties.
    final class Thermometer: @unchecked Sendable {  // its state is @ThreadSafeSemaphore
        /// The last temperature, as the README declares it.
        @ThreadSafeSemaphore public var temperatureInCelsius: Float = Float.zero
        /// How many readings were added.
        @ThreadSafeSemaphore public var readings: Int = 0

        /// A read-modify-write under the wrapper's lock.
        func addReading() { _readings.withLock { $0 += 1 } }

        /// The wrapper itself (its storage is private to the class).
        var readingsWrapper: ThreadSafeSemaphore<Int> { _readings }
    }
}
