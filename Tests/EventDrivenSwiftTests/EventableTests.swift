// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

@Suite("Events (E1–E3)")
struct EventableTests {
    @Test("E1: a struct conforming to Eventable needs nothing more and arrives intact")
    func plainStructIsAnEvent() async {
        let bus = EventBus(label: "E1")
        let received = CoreRecorder<Float>()
        let handle = bus.listen(Reading.self, executeOn: .listenerThread) { event, _ in
            received.append(event.temperatureInCelsius)
        }
        Reading(temperatureInCelsius: 23.25).queue(on: bus)
        Reading(temperatureInCelsius: -4).stack(on: bus)
        await bus.drain()
        #expect(received.values.sorted() == [-4, 23.25])
        let sendable: any Sendable = Reading(temperatureInCelsius: 1)
        #expect(sendable is any Eventable)
        handle.cancel()
    }

    @Test(
        "E1: events of every layout (inline trivial, with references, too large for inline storage) arrive intact through mailboxes, then are released",
        arguments: [DeliveryContext.listenerThread, .requesterThread, .synchronous])
    func everyLayoutArrivesAndIsReleased(executeOn: DeliveryContext) async {
        let bus = EventBus(label: "E1-layouts")
        let received = CoreRecorder<String>()
        var handles = [
            bus.listen(Tick.self, executeOn: executeOn) { event, _ in received.append("tick \(event.index)") },
            bus.listen(Named.self, executeOn: executeOn) { event, _ in received.append("named \(event.name)") },
            bus.listen(Large.self, executeOn: executeOn) { event, _ in
                received.append("large \(event.values.0 + event.values.4) \(event.label)")
            },
            bus.listen(Carrying.self, executeOn: executeOn, interestedIn: .latestOnly) { event, _ in
                received.append("carrying \(event.payload.value)")
            },
        ]
        var released: [WeakPayload] = []
        for index in 0..<3 {
            Tick(index: index).queue(on: bus)
            Named(name: "n\(index)").queue(on: bus)
            Large(values: (index, 0, 0, 0, 10), label: "l\(index)").queue(on: bus)
            let payload = Payload(value: index)
            released.append(WeakPayload(payload: payload))
            Carrying(payload: payload).queue(on: bus)
        }
        await bus.drain()
        // Each listener sees its events in order (requester contexts of different listeners
        // may interleave).
        #expect(received.values.filter { $0.hasPrefix("tick") } == ["tick 0", "tick 1", "tick 2"])
        #expect(received.values.filter { $0.hasPrefix("named") } == ["named n0", "named n1", "named n2"])
        #expect(received.values.filter { $0.hasPrefix("large") } == ["large 10 l0", "large 11 l1", "large 12 l2"])
        #expect(received.values.filter { $0.hasPrefix("carrying") }.last == "carrying 2")
        #expect(released.allSatisfy { $0.payload == nil }, "every payload is released once its event was handled")
        for handle in handles { handle.cancel() }
        handles.removeAll()
    }

    @Test("E2: G<Int> and G<String> are different routes")
    func genericSpecialisationsAreDistinct() async {
        let bus = EventBus(label: "E2")
        let ints = CoreRecorder<Int>()
        let strings = CoreRecorder<String>()
        let intHandle = bus.listen(Box<Int>.self, executeOn: .listenerThread) { event, _ in ints.append(event.value) }
        #expect(bus.subscriberCount(for: Box<Int>.self) == 1)
        #expect(bus.subscriberCount(for: Box<String>.self) == 0)
        let stringHandle = bus.listen(Box<String>.self, executeOn: .listenerThread) { event, _ in
            strings.append(event.value)
        }
        Box(value: 1).queue(on: bus)
        Box(value: "one").queue(on: bus)
        Box(value: 2).queue(on: bus)
        Box(value: 3.0).queue(on: bus)  // Box<Double>: nobody listens
        await bus.drain()
        #expect(ints.values == [1, 2])
        #expect(strings.values == ["one"])
        #expect(bus.statistics.undelivered == 1)
        intHandle.cancel()
        stringHandle.cancel()
    }

    @Test("E2: two types with the same name in different scopes are different routes")
    func sameNameDifferentTypes() async {
        let bus = EventBus(label: "E2-names")
        let firsts = CoreRecorder<Int>()
        let handle = bus.listen(First.Ping.self, executeOn: .synchronous) { _, _ in firsts.append(1) }
        Second.Ping().queue(on: bus)
        First.Ping().queue(on: bus)
        #expect(firsts.count == 1)
        #expect(bus.statistics.undelivered == 1)
        handle.cancel()
    }

    @Test("E3: every delivery carries its priority, method and a monotonic dispatch time")
    func metadataIsCarried() async {
        let bus = EventBus(label: "E3")
        let seen = CoreRecorder<(Int, EventMetadata)>()
        let handle = bus.listen(Tick.self, executeOn: .listenerThread) { event, metadata in
            seen.append((event.index, metadata))
        }
        let before = DispatchTime.now()
        let priorities = EventPriority.allCases
        for index in 0..<1_000 {
            let priority = priorities[index % priorities.count]
            if index.isMultiple(of: 2) {
                Tick(index: index).queue(on: bus, priority: priority)
            } else {
                Tick(index: index).stack(on: bus, priority: priority)
            }
        }
        let after = DispatchTime.now()
        await bus.drain()
        let byIndex = seen.values.sorted { $0.0 < $1.0 }
        #expect(byIndex.count == 1_000)
        for (index, metadata) in byIndex {
            #expect(metadata.priority == priorities[index % priorities.count])
            #expect(metadata.method == (index.isMultiple(of: 2) ? .queue : .stack))
            #expect(metadata.scheduledTime == nil)
            #expect(metadata.dispatchTime >= before && metadata.dispatchTime <= after)
        }
        let times = byIndex.map(\.1.dispatchTime)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "dispatch order is dispatch-time order")
        handle.cancel()
    }

    @Test("E3: a scheduled event's dispatch time is its due time, and its scheduled time is present")
    func scheduledMetadata() async {
        let bus = EventBus(label: "E3-scheduled")
        let arrived = DispatchSemaphore(value: 0)
        let seen = CoreRecorder<(EventMetadata, DispatchTime)>()
        let handle = bus.listen(Tick.self, executeOn: .listenerThread) { _, metadata in
            seen.append((metadata, DispatchTime.now()))
            arrived.signal()
        }
        let scheduledAround = DispatchTime.now()
        let due = scheduledAround + .milliseconds(20)
        Tick(index: 0).scheduleStack(at: due, on: bus, priority: .high)
        await coreWait(arrived)
        let (metadata, deliveredAt) = seen.values[0]
        #expect(metadata.dispatchTime == due)
        #expect(metadata.priority == .high)
        #expect(metadata.method == .stack)
        #expect(metadata.scheduledTime.map { $0 >= scheduledAround && $0 < due } == true)
        #expect(deliveredAt >= due, "never delivered before it is due")
        handle.cancel()
    }
}

extension EventableTests {
    /// An event holding a reference (a string), stored inline.
    struct Named: Eventable {
        let name: String
    }

    /// An event too large for an existential's inline storage.
    struct Large: Eventable {
        let values: (Int, Int, Int, Int, Int)
        let label: String
    }

    final class Payload: Sendable {
        let value: Int
        init(value: Int) { self.value = value }
    }

    /// An event holding a class instance, to see when the event is released.
    struct Carrying: Eventable {
        let payload: Payload
    }

    struct WeakPayload {
        weak var payload: Payload?
    }

    struct Reading: Eventable {
        var temperatureInCelsius: Float
    }

    struct Box<Value: Sendable>: Eventable {
        let value: Value
    }

    enum First {
        struct Ping: Eventable {}
    }

    enum Second {
        struct Ping: Eventable {}
    }

    /// A trivially copyable event of one word, stored inline in an existential.
    struct Tick: Eventable {
        let index: Int
    }
}
