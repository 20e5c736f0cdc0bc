// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// The first `count` elements of `stream` (fewer if it ends first).
func collect<S: AsyncSequence & Sendable>(_ count: Int, from stream: S) async -> [S.Element]
where S.Element: Sendable {
    var values: [S.Element] = []
    var iterator = stream.makeAsyncIterator()
    while values.count < count, let next = try? await iterator.next() { values.append(next) }
    return values
}

@Suite("A1: event streams")
struct StreamTests {
    private struct Reading: Eventable, Equatable { let value: Int }

    @Test("A1: a stream yields every event, in dispatch order")
    func yieldsInOrder() async {
        let bus = EventBus(label: #function)
        let stream = bus.events(of: Reading.self)
        for value in 0..<500 { bus.queue(Reading(value: value), priority: value % 2 == 0 ? .high : .low) }
        let values = await collect(500, from: stream)
        #expect(values.map(\.value) == Array(0..<500))
        #expect(bus.statistics.delivered == 500)
    }

    @Test("A1: several concurrent streams each get every event")
    func concurrentStreams() async {
        let bus = EventBus(label: #function)
        let streams = (0..<3).map { _ in bus.events(of: Reading.self) }
        await withTaskGroup(of: [Int].self) { group in
            for stream in streams {
                group.addTask { await collect(2_000, from: stream).map(\.value) }
            }
            await coreOnThreads(4) { producer in
                for index in 0..<500 { bus.queue(Reading(value: producer * 500 + index)) }
            }
            for await values in group {
                #expect(values.count == 2_000)
                #expect(Set(values) == Set(0..<2_000))
                // Per-producer FIFO (D4) holds in a stream too.
                for producer in 0..<4 {
                    let own = values.filter { $0 / 500 == producer }
                    #expect(own == own.sorted())
                }
            }
        }
    }

    @Test("A1: a stream ends when its task is cancelled, and unsubscribes")
    func endsOnCancel() async {
        let bus = EventBus(label: #function)
        let stream = bus.events(of: Reading.self)
        #expect(bus.subscriberCount(for: Reading.self) == 1)
        let consumer = Task {
            var seen = 0
            for await _ in stream { seen += 1 }
            return seen
        }
        bus.queue(Reading(value: 1))
        consumer.cancel()
        _ = await consumer.value
        #expect(bus.subscriberCount(for: Reading.self) == 0)
    }

    @Test("A1/R5: a stream ends when the bus shuts down, after yielding what it had buffered")
    func endsOnShutdown() async {
        let bus = EventBus(label: #function)
        let stream = bus.events(of: Reading.self)
        for value in 0..<10 { bus.queue(Reading(value: value)) }
        await bus.shutdown()
        var values: [Int] = []
        for await reading in stream { values.append(reading.value) }
        #expect(values == Array(0..<10))
    }

    @Test("A1: a stream made after shutdown has already ended")
    func afterShutdown() async {
        let bus = EventBus(label: #function)
        await bus.shutdown()
        var count = 0
        for await _ in bus.events(of: Reading.self) { count += 1 }
        #expect(count == 0)
        #expect(bus.subscriberCount(for: Reading.self) == 0)
    }

    @Test("A1: a stream ends when its bus is freed")
    func endsWhenBusFreed() async {
        var bus: EventBus? = EventBus(label: #function)
        let stream = bus!.events(of: Reading.self)
        bus!.queue(Reading(value: 7))
        weak let weakBus = bus
        bus = nil
        #expect(weakBus == nil)
        var values: [Int] = []
        for await reading in stream { values.append(reading.value) }
        #expect(values == [7])
    }

    @Test("A1: bufferingNewest keeps the newest events and counts the dropped ones")
    func bufferingNewest() async {
        let bus = EventBus(label: #function)
        let letters = bus.deadLetters()
        let stream = bus.events(of: Reading.self, bufferingPolicy: .bufferingNewest(3))
        for value in 0..<10 { bus.queue(Reading(value: value)) }
        await bus.drain()
        #expect(bus.statistics.dropped == 7)
        #expect(bus.statistics.delivered == 0, "delivered when the consumer takes them (issue 13.3)")
        await bus.shutdown()
        var values: [Int] = []
        for await reading in stream { values.append(reading.value) }
        #expect(values == [7, 8, 9])
        #expect(bus.statistics.delivered == 3)
        var dropped: [Int] = []
        for await letter in letters where letter.reason == .dropped {
            dropped.append((letter.event as? Reading)?.value ?? -1)
        }
        #expect(dropped == Array(0..<7))
    }

    @Test("A1: bufferingOldest keeps the oldest events")
    func bufferingOldest() async {
        let bus = EventBus(label: #function)
        let stream = bus.events(of: Reading.self, bufferingPolicy: .bufferingOldest(3))
        for value in 0..<10 { bus.queue(Reading(value: value)) }
        await bus.shutdown()
        var values: [Int] = []
        for await reading in stream { values.append(reading.value) }
        #expect(values == [0, 1, 2])
        #expect(bus.statistics.dropped == 7)
    }

    @Test("A1: Event.events(on:) and eventsWithMetadata carry the event and its metadata")
    func staticAndMetadata() async {
        let bus = EventBus(label: #function)
        let plain = Reading.events(on: bus)
        let detailed = bus.eventsWithMetadata(of: Reading.self)
        Reading(value: 3).stack(on: bus, priority: .highest)
        let first = await collect(1, from: plain)
        let second = await collect(1, from: detailed)
        #expect(first.map(\.value) == [3])
        #expect(second.first?.event.value == 3)
        #expect(second.first?.metadata.priority == .highest)
        #expect(second.first?.metadata.method == .stack)
    }

    @Test("A1: streams of one type do not see other types or other buses")
    func isolation() async {
        let bus = EventBus(label: #function)
        let other = EventBus(label: #function + ".other")
        let stream = bus.events(of: Reading.self)
        other.queue(Reading(value: 1))
        bus.queue(Numbered(value: 2))
        bus.queue(Reading(value: 3))
        let values = await collect(1, from: stream)
        #expect(values.map(\.value) == [3])
    }
}
