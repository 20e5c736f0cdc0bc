// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

@Suite("R1/R4: dead letters")
struct DeadLetterTests {
    private struct Parcel: Eventable { let value: Int }
    private struct Unheard: Eventable {}

    @Test("R4: an event nobody listens to is an undelivered dead letter")
    func undelivered() async {
        let bus = EventBus(label: #function)
        let letters = bus.deadLetters()
        Unheard().queue(on: bus, priority: .high)
        await bus.shutdown()
        var collected: [DeadLetter] = []
        for await letter in letters { collected.append(letter) }
        #expect(collected.count == 1)
        #expect(collected.first?.reason == .undelivered)
        #expect(collected.first?.event is Unheard)
        #expect(collected.first?.metadata.priority == .high)
        #expect(collected.first?.eventType == String(reflecting: Unheard.self))
        #expect(bus.statistics.undelivered == 1)
    }

    @Test("R1/R4: superseded deliveries of a latest-only listener are dead letters")
    func superseded() async {
        let bus = EventBus(label: #function)
        let letters = bus.deadLetters()
        let gate = CoreGate()
        let seen = CoreRecorder<Int>()
        bus.listen(Parcel.self, executeOn: .listenerThread) { parcel, _ in
            if parcel.value == 0 { gate.block() }
        }
        bus.listen(Parcel.self, executeOn: .listenerThread, interestedIn: .latestOnly) { parcel, _ in
            seen.append(parcel.value)
        }
        bus.queue(Parcel(value: 0))
        await gate.waitUntilEntered()
        for value in 1...3 { bus.queue(Parcel(value: value)) }
        gate.open()
        await bus.drain()
        #expect(seen.values == [3])
        await bus.shutdown()
        var superseded: [Int] = []
        for await letter in letters where letter.reason == .superseded {
            superseded.append((letter.event as! Parcel).value)
        }
        // Event 0 was already superseded when the blocked batch reached the latest-only listener.
        #expect(Set(superseded) == [0, 1, 2])
        #expect(bus.statistics.superseded == 3)
    }

    @Test("R1/R4: expired deliveries are dead letters")
    func expired() async {
        let bus = EventBus(label: #function)
        let letters = bus.deadLetters()
        let gate = CoreGate()
        bus.listen(Parcel.self, executeOn: .listenerThread) { parcel, _ in
            if parcel.value == 0 { gate.block() }
        }
        bus.listen(Parcel.self, executeOn: .listenerThread, interestedIn: .youngerThan, maximumAge: 1) { _, _ in }
        bus.queue(Parcel(value: 0))
        await gate.waitUntilEntered()
        bus.queue(Parcel(value: 1))
        gate.open()
        await bus.shutdown()
        var reasons: [DeadLetter.Reason] = []
        for await letter in letters { reasons.append(letter.reason) }
        #expect(reasons.filter { $0 == .expired }.count == 2)
        #expect(bus.statistics.expired == 2)
    }

    @Test("R4: deliveries discarded by a removed listener are dead letters")
    func discardedByRemoval() async {
        let bus = EventBus(label: #function)
        let letters = bus.deadLetters()
        let gate = CoreGate()
        bus.listen(Parcel.self, executeOn: .listenerThread) { parcel, _ in
            if parcel.value == 0 { gate.block() }
        }
        let removed = bus.listen(Parcel.self, executeOn: .listenerThread) { _, _ in }
        bus.queue(Parcel(value: 0))
        await gate.waitUntilEntered()
        bus.queue(Parcel(value: 1))
        removed.cancel()
        gate.open()
        await bus.shutdown()
        var discarded: [Int] = []
        for await letter in letters where letter.reason == .discarded {
            discarded.append((letter.event as! Parcel).value)
        }
        #expect(discarded == [0, 1])
    }

    @Test("R4: several dead-letter streams each see every dead letter; both end at shutdown")
    func severalObservers() async {
        let bus = EventBus(label: #function)
        let first = bus.deadLetters()
        let second = bus.deadLetters(bufferingPolicy: .bufferingNewest(1))
        for _ in 0..<5 { Unheard().queue(on: bus) }
        await bus.shutdown()
        var firstCount = 0
        for await _ in first { firstCount += 1 }
        var secondCount = 0
        for await _ in second { secondCount += 1 }
        #expect(firstCount == 5)
        #expect(secondCount == 1)
    }

    @Test("R1: every dispatched event is delivered or counted, per subscriber")
    func everythingCounted() async {
        let bus = EventBus(label: #function)
        final class Owner: Sendable {}
        var owner: Owner? = Owner()
        let gate = CoreGate()
        bus.listen(Parcel.self, executeOn: .listenerThread) { parcel, _ in
            if parcel.value == 0 { gate.block() }
        }
        bus.listen(Parcel.self, executeOn: .listenerThread, interestedIn: .latestOnly) { _, _ in }
        bus.listen(Parcel.self, owner: owner, executeOn: .listenerThread) { _, _ in }
        let evenOnly: TypedEventFilterCallback<Parcel> = { parcel, _, _ in parcel.value.isMultiple(of: 2) }
        bus.listen(Parcel.self, executeOn: .listenerThread, interestedIn: .custom, customFilter: evenOnly) { _, _ in }
        let stream = bus.events(of: Parcel.self, bufferingPolicy: .bufferingOldest(4))
        bus.queue(Parcel(value: 0))
        await gate.waitUntilEntered()
        for value in 1..<10 { bus.queue(Parcel(value: value)) }
        owner = nil
        Unheard().queue(on: bus)
        gate.open()
        await bus.drain()
        // A stream's events are counted when its consumer takes them (issue 13.3).
        var iterator = stream.makeAsyncIterator()
        for _ in 0..<4 { _ = await iterator.next() }
        let stats = bus.statistics
        let accounted =
            stats.delivered + stats.expired + stats.superseded + stats.filtered + stats.discarded
            + stats.ownerReleased + stats.dropped
        #expect(accounted == 10 * 5)
        #expect(stats.undelivered == 1)
        #expect(stats.dropped == 6)
    }
}

@Suite struct ExternalDeadLetterTests {
    struct ArrivedFromOutside: Eventable { let text: String }

    @Test func aPostedLetterReachesObserversAndIsNotCounted() async throws {
        let bus = EventBus(label: "external-letters")
        var letters = bus.deadLetters().makeAsyncIterator()
        bus.postDeadLetter(ArrivedFromOutside(text: "undecodable"), reason: .failed)
        let letter = try #require(await letters.next())
        #expect((letter.event as? ArrivedFromOutside)?.text == "undecodable")
        #expect(letter.reason == .failed)
        #expect(bus.statistics.failed == 0)
        await bus.shutdown()
    }

    @Test func afterShutdownAPostIsIgnored() async {
        let bus = EventBus(label: "external-letters-closed")
        let letters = bus.deadLetters()
        await bus.shutdown()
        bus.postDeadLetter(ArrivedFromOutside(text: "late"), reason: .failed)
        var count = 0
        for await _ in letters { count += 1 }
        #expect(count == 0)
    }
}
