// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

@Suite("A2: delivery onto an actor")
struct ActorDeliveryTests {
    private struct Tick: Eventable { let value: Int }

    private actor Tally {
        var values: [Int] = []
        func record(_ value: Int) { values.append(value) }
    }

    @Test("A2: events reach an actor isolated, in dispatch order")
    func ordered() async {
        let bus = EventBus(label: #function)
        let tally = Tally()
        bus.listen(Tick.self, on: tally) { tally, tick in
            tally.assertIsolated()
            tally.values.append(tick.value)
        }
        await coreOnThreads(3) { producer in
            for index in 0..<400 { bus.queue(Tick(value: producer * 1_000 + index)) }
        }
        await bus.drain()
        let values = await tally.values
        #expect(values.count == 1_200)
        for producer in 0..<3 {
            let own = values.filter { $0 / 1_000 == producer }
            #expect(own == Array(producer * 1_000..<producer * 1_000 + 400))
        }
    }

    @Test("A2/L2: the actor is held weakly; once freed, its listener is removed")
    func weakActor() async {
        let bus = EventBus(label: #function)
        var tally: Tally? = Tally()
        weak let weakTally = tally
        bus.listen(Tick.self, on: tally!) { tally, tick in tally.record(tick.value) }
        bus.queue(Tick(value: 1))
        await bus.drain()
        #expect(await tally?.values == [1])
        tally = nil
        #expect(weakTally == nil)
        bus.queue(Tick(value: 2))
        await bus.drain()
        #expect(bus.subscriberCount(for: Tick.self) == 0)
        #expect(bus.statistics.ownerReleased == 1)
    }

    @Test("A2: several actors each get every event")
    func severalActors() async {
        let bus = EventBus(label: #function)
        let tallies = [Tally(), Tally(), Tally()]
        for tally in tallies {
            bus.listen(Tick.self, on: tally) { tally, tick in tally.record(tick.value) }
        }
        for value in 0..<200 { bus.stack(Tick(value: value)) }
        await bus.drain()
        for tally in tallies {
            #expect(await tally.values == Array(0..<200))
        }
    }
}
