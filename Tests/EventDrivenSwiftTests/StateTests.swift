// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

/// Causality's README, written in our API.
private struct PlayerInfo: Equatable, Sendable {
    let numberOfLives: Int
    let health: Int
    let armor: Int
}

private enum GameStates {
    static let playerState1 = EventState<PlayerInfo>(label: "Player 1 State")
    static let playerState2 = EventState<PlayerInfo>(label: "Player 2 State")
    /// Causality's dynamic state `PlayerState<PlayerInfo>(playerId:)`.
    static func playerState(_ playerId: Int) -> EventState<PlayerInfo> {
        EventState(label: "PlayerState", key: playerId)
    }
}

private let userNameState = EventState<String>(label: "user name state")

@Suite("States")
struct StateTests {
    // MARK: C3 states

    @Test("C3: README player state: current value first, then only differing values")
    func playerState() async {
        let bus = EventBus(label: "C3-player")
        let info = PlayerInfo(numberOfLives: 3, health: 75, armor: 10)
        #expect(bus.set(GameStates.playerState1, to: info))
        let seen = CoreRecorder<PlayerInfo>()
        let subscription = bus.subscribe(GameStates.playerState1) { state in seen.append(state) }
        await bus.drain()
        #expect(seen.values == [info])

        #expect(!bus.set(GameStates.playerState1, to: info))
        let hurt = PlayerInfo(numberOfLives: 3, health: 50, armor: 10)
        #expect(bus.set(GameStates.playerState1, to: hurt))
        bus.set(GameStates.playerState2, to: hurt)
        await bus.drain()
        #expect(seen.values == [info, hurt])
        subscription.cancel()
    }

    @Test("C3: README user name state with a String value")
    func userName() {
        let bus = EventBus(label: "C3-username")
        let names = CoreRecorder<String>()
        bus.subscribe(userNameState, on: .synchronous) { username in names.append(username) }
        #expect(names.values.isEmpty)
        bus.set(userNameState, to: "Mary Jane Doe")
        bus.set(userNameState, to: "Mary Jane Doe")
        #expect(names.values == ["Mary Jane Doe"])
    }

    @Test("C3: README dynamic player states keyed by player id")
    func dynamicStates() {
        let bus = EventBus(label: "C3-dynamic")
        let one = CoreRecorder<PlayerInfo>()
        let two = CoreRecorder<PlayerInfo>()
        bus.subscribe(GameStates.playerState(1), on: .synchronous) { _, playerInfo in one.append(playerInfo) }
        bus.subscribe(GameStates.playerState(2), on: .synchronous) { _, playerInfo in two.append(playerInfo) }
        let info = PlayerInfo(numberOfLives: 3, health: 75, armor: 100)
        bus.set(GameStates.playerState(1), to: info)
        #expect(one.values == [info])
        #expect(two.values.isEmpty)
        #expect(bus.value(of: GameStates.playerState(1)) == info)
        #expect(bus.value(of: GameStates.playerState(2)) == nil)
    }

    @Test("C3: the current value can be read without subscribing, per bus")
    func readValue() {
        let bus = EventBus(label: "C3-read")
        let other = EventBus(label: "C3-read-other")
        let state = EventState<Int>(label: "level")
        #expect(bus.value(of: state) == nil)
        bus.set(state, to: 4)
        #expect(bus.value(of: state) == 4)
        #expect(bus.value(of: EventState<Int>(label: "level")) == 4)
        #expect(other.value(of: state) == nil)
        #expect(bus.subscriberCount(for: state) == 0)
    }

    @Test("C3: keyed states with colliding hashes and a channel of the same label stay apart")
    func stateIdentity() {
        let bus = EventBus(label: "C3-identity")
        let one = EventState<Int>(label: "score", key: CollidingKey(id: 1))
        let two = EventState<Int>(label: "score", key: CollidingKey(id: 2))
        let channelMessages = CoreRecorder<Int>()
        bus.subscribe(EventChannel<Int>(label: "score", key: CollidingKey(id: 1)), on: .synchronous) {
            channelMessages.append($0)
        }
        bus.set(one, to: 1)
        bus.set(two, to: 2)
        #expect(bus.value(of: one) == 1)
        #expect(bus.value(of: two) == 2)
        #expect(channelMessages.values.isEmpty)
    }

    @Test("C3: removeValue forgets the value without notifying")
    func removeValue() {
        let bus = EventBus(label: "C3-remove")
        let state = EventState<Int>(label: "x")
        let seen = CoreRecorder<Int>()
        bus.subscribe(state, on: .synchronous) { seen.append($0) }
        bus.set(state, to: 1)
        bus.removeValue(of: state)
        #expect(bus.value(of: state) == nil)
        let late = CoreRecorder<Int>()
        bus.subscribe(state, on: .synchronous) { late.append($0) }
        #expect(late.values.isEmpty)
        #expect(bus.set(state, to: 1))
        #expect(seen.values == [1, 1])
        #expect(late.values == [1])
    }

    @Test("C3: a serial subscriber racing with a setter sees every later change once, in order")
    func subscribeRacesWithSet() async {
        let bus = EventBus(label: "C3-race")
        let state = EventState<Int>(label: "counter")
        let logs = (0..<4).map { _ in CoreRecorder<Int>() }
        let queues = (0..<4).map { DispatchQueue(label: "C3-race-\($0)") }
        bus.set(state, to: 0)
        await coreOnThreads(2) { thread in
            if thread == 0 {
                for value in 1...2_000 { bus.set(state, to: value) }
            } else {
                for index in 0..<4 {
                    bus.subscribe(state, on: .queue(queues[index])) { logs[index].append($0) }
                }
            }
        }
        await bus.drain()
        for log in logs {
            let values = log.values
            #expect(values.last == 2_000)
            // The first value is the one current at subscription; every change follows, none twice.
            if let first = values.first {
                #expect(values == Array(first...2_000))
            }
        }
    }

    @Test("C3: concurrent setters: subscribers never go back to an older value")
    func concurrentSetters() async {
        let bus = EventBus(label: "C3-setters")
        let state = EventState<Int>(label: "shared")
        let serial = CoreRecorder<Int>()
        let synchronous = CoreRecorder<Int>()
        bus.subscribe(state, on: .listenerThread) { serial.append($0) }
        bus.subscribe(state, on: .synchronous) { synchronous.append($0) }
        await coreOnThreads(4) { thread in
            for step in 0..<500 {
                bus.set(state, to: thread * 10_000 + step)
                _ = bus.value(of: state)
            }
        }
        await bus.drain()
        #expect(serial.count == 2_000)
        #expect(serial.values.last == bus.value(of: state))
        #expect(Set(serial.values).count == 2_000)
        // In the order the changes were made: each setter's own changes, at least, in its order.
        for thread in 0..<4 {
            let own = serial.values.filter { $0 / 10_000 == thread }
            #expect(own == own.sorted(), "setter \(thread)'s changes out of order")
        }
        #expect(synchronous.count <= 2_000)
        #expect(Set(synchronous.values).count == synchronous.count)
    }

    // MARK: C4 one-shot handlers and unsubscribe for states

    @Test("C4: README one-shot state handler monitors a single change")
    func oneShotState() async {
        let bus = EventBus(label: "C4-state")
        let seen = CoreRecorder<PlayerInfo>()
        let subscription = bus.subscribe(GameStates.playerState1) { subscription, state in
            seen.append(state)
            subscription.cancel()
        }
        bus.set(GameStates.playerState1, to: PlayerInfo(numberOfLives: 3, health: 75, armor: 10))
        bus.set(GameStates.playerState1, to: PlayerInfo(numberOfLives: 2, health: 75, armor: 10))
        await bus.drain()
        #expect(seen.count == 1)
        #expect(!subscription.isActive)
    }

    @Test("C4: unsubscribing from a state stops its deliveries")
    func unsubscribeStops() async {
        let bus = EventBus(label: "C4-unsubscribe")
        let state = EventState<Int>(label: "value")
        let seen = CoreRecorder<Int>()
        let subscription = bus.subscribe(state) { seen.append($0) }
        bus.set(state, to: 1)
        await bus.drain()
        subscription.cancel()
        bus.set(state, to: 2)
        bus.set(state, to: 3)
        await bus.drain()
        #expect(seen.values == [1])
        #expect(bus.subscriberCount(for: state) == 0)
    }

    // MARK: C5

    @Test("C5: a synchronous state subscriber gets the current value before subscribe returns")
    func synchronousReplay() {
        let bus = EventBus(label: "C5-state")
        let state = EventState<String>(label: "mode")
        bus.set(state, to: "idle")
        let seen = CoreRecorder<String>()
        bus.subscribe(state, on: .synchronous) { seen.append($0) }
        #expect(seen.values == ["idle"])
    }

    @Test("C3: a synchronous state handler may set the same state again without deadlock")
    func reentrantSet() {
        let bus = EventBus(label: "C3-reentrant")
        let state = EventState<Int>(label: "clamped")
        let seen = CoreRecorder<Int>()
        bus.subscribe(state, on: .synchronous) { value in
            seen.append(value)
            if value > 10 { bus.set(state, to: 10) }
            _ = bus.value(of: state)
        }
        bus.set(state, to: 15)
        #expect(bus.value(of: state) == 10)
        #expect(seen.values == [15, 10])
    }

    @Test("C3: setting a state on a shut-down bus is reported, not silently dropped")
    func setAfterShutdown() async {
        let bus = EventBus(label: "C3-shutdown")
        let errors = CoreRecorder<EventDrivenError>()
        bus.setErrorHandler { errors.append($0) }
        await bus.shutdown()
        #expect(!bus.set(EventState<Int>(label: "late"), to: 1))
        #expect(errors.count == 1)
        // The error names the state as its description does.
        #expect(errors.values.first?.eventType == EventState<Int>(label: "late").description)
        #expect(errors.values.first?.eventType == #"EventState<Int>(label: "late")"#)
        #expect(bus.statistics.rejected == 1)
    }
}
