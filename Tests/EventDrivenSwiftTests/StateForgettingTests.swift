// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// A key whose release the tests can see: a state keeps its key only while it is in use.
private final class PlayerKey: Hashable, Sendable {
    let id: Int

    init(_ id: Int) { self.id = id }

    static func == (lhs: PlayerKey, rhs: PlayerKey) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

@Suite("States: a keyed state nobody uses is forgotten (issue 26, item 7)")
struct StateForgettingTests {
    @Test("set then removeValue(of:): the bus releases the state's key")
    func removedValueReleasesTheKey() async {
        let bus = EventBus(label: "states.forget.removeValue")
        weak var released: PlayerKey?
        do {
            let key = PlayerKey(1)
            released = key
            let state = EventState<Int>(label: "player", key: key)
            bus.set(state, to: 3)
            bus.removeValue(of: state)
        }
        #expect(released == nil)
        await bus.shutdown()
    }

    @Test("subscribe then cancel, on the setter's thread or a listener thread: the bus releases the key")
    func endedSubscriptionReleasesTheKey() async {
        let bus = EventBus(label: "states.forget.subscribe")
        for context in [DeliveryContext.synchronous, .listenerThread] {
            weak var released: PlayerKey?
            do {
                let key = PlayerKey(2)
                released = key
                let state = EventState<Int>(label: "player", key: key)
                let subscription = bus.subscribe(state, on: context) { _ in }
                subscription.cancel()
            }
            await bus.drain()
            #expect(released == nil, "\(context)")
        }
        await bus.shutdown()
    }

    @Test("a state in use keeps its value and subscribers; a forgotten one starts afresh")
    func forgottenStateStartsAfresh() async {
        let bus = EventBus(label: "states.forget.afresh")
        let state = EventState<Int>(label: "player", key: 7)
        let seen = CoreRecorder<Int>()
        let subscription = bus.subscribe(state, on: .synchronous) { seen.append($0) }
        bus.set(state, to: 1)
        bus.removeValue(of: state)
        bus.set(state, to: 1)
        #expect(seen.values == [1, 1])
        subscription.cancel()
        #expect(bus.value(of: state) == 1)
        bus.removeValue(of: state)
        #expect(bus.value(of: state) == nil)
        #expect(bus.set(state, to: 2))
        let later = CoreRecorder<Int>()
        bus.subscribe(state, on: .synchronous) { later.append($0) }
        bus.set(state, to: 3)
        #expect(later.values == [2, 3])
        await bus.shutdown()
    }

    @Test("forgetting races neither a set nor a subscription of the same state")
    func forgettingRacesNothing() async {
        let bus = EventBus(label: "states.forget.race")
        let state = EventState<Int>(label: "player", key: 9)
        let rounds = 2_000
        let lost = CoreRecorder<Int>()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Each subscription that ends may forget the state; a value set just before
                // must survive it.
                for _ in 0..<rounds { bus.subscribe(state, on: .synchronous) { _ in }.cancel() }
            }
            group.addTask {
                for round in 1...rounds {
                    bus.set(state, to: round)
                    // Only this task removes the value; forgetting must never lose it.
                    if bus.value(of: state) == nil { lost.append(round) }
                    bus.removeValue(of: state)
                }
            }
            group.addTask {
                for _ in 0..<rounds {
                    let seen = CoreRecorder<Int>()
                    let subscription = bus.subscribe(state, on: .synchronous) { seen.append($0) }
                    // A subscriber registered in a cell that was forgotten would miss this, and
                    // every change after it.
                    let mark = seen.values.count
                    bus.set(state, to: -1)
                    if !seen.values.contains(-1) {
                        // Or the other task's next set overtook it: committed after -1, it reached
                        // this synchronous subscriber first (on that task's thread), and a state
                        // never hands a subscriber an older value after a newer one. The newer
                        // value then arrives; from a forgotten cell, nothing would.
                        let overtaken = await coreEventually { seen.values.count > mark }
                        if !overtaken { lost.append(-1) }
                    }
                    subscription.cancel()
                }
            }
        }
        #expect(lost.values.isEmpty)
        await bus.shutdown()
    }
}
