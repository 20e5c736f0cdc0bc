// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// Issue 25: a closure written in `@MainActor` code (or in an actor, using its state) runs there
/// without annotations, as `Task { }` does. Before, these registrations did not compile ("main
/// actor-isolated property can not be mutated from a Sendable closure").
@Suite("U1/A4/L3: a listener's closure keeps the isolation of the code it was written in")
struct InheritedIsolationTests {
    struct Reading: Eventable { let value: Int }

    @MainActor
    final class Thermometer {
        var values: [Int] = []
        var byMethod: [Int] = []
        var offMain = 0
        private var handles: [EventListenerHandle] = []

        init(bus: EventBus) {
            handles.append(
                bus.listen(Reading.self, owner: self) { owner, reading in
                    owner.record(reading.value)
                })
            handles.append(
                bus.listen(Reading.self, owner: self) { owner, reading, _ in
                    owner.record(reading.value)
                })
            handles.append(Reading.addListener(self, onReading, on: bus))
        }

        private func record(_ value: Int) {
            if DispatchQueue.getSpecific(key: ReadmeContractTests.mainQueueKey) != true { offMain += 1 }
            values.append(value)
        }

        func onReading(_ reading: Reading, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            byMethod.append(reading.value)
        }
    }

    @MainActor
    final class Scoreboard {
        var scores: [Int] = []
        var modes: [String] = []
        var offMain = 0
        private var subscriptions: [ChannelSubscription] = []

        init(bus: EventBus, scores: EventChannel<Int>, mode: EventState<String>) {
            subscriptions.append(
                bus.subscribe(scores) { [weak self] score in
                    self?.note()
                    self?.scores.append(score)
                })
            subscriptions.append(
                bus.subscribe(mode) { [weak self] value in
                    self?.note()
                    self?.modes.append(value)
                })
        }

        private func note() {
            if DispatchQueue.getSpecific(key: ReadmeContractTests.mainQueueKey) != true { offMain += 1 }
        }
    }

    actor Tally {
        var values: [Int] = []
        func register(on bus: EventBus) -> EventListenerHandle {
            bus.listen(Reading.self) { reading, _ in
                self.values.append(reading.value)  // the actor's state: the closure is isolated to it
            }
        }
    }

    @Test("closures and a bound method written in a @MainActor model run on the main actor, in order")
    @MainActor
    func mainActorModel() async {
        _ = ReadmeContractTests.mainQueueKey  // marks the main queue
        let bus = EventBus(label: "inherit-main")
        let model = Thermometer(bus: bus)
        await Task.detached {
            for value in 0..<50 { Reading(value: value).queue(on: bus) }
        }.value
        await bus.drain()
        #expect(model.offMain == 0)
        #expect(model.values == (0..<50).flatMap { [$0, $0] })
        #expect(model.byMethod == Array(0..<50))
    }

    @Test("a channel's and a state's closures written in a @MainActor model run on the main actor, in order")
    @MainActor
    func mainActorSubscriptions() async {
        _ = ReadmeContractTests.mainQueueKey  // marks the main queue
        let bus = EventBus(label: "inherit-main-channels")
        let scores = EventChannel<Int>(label: "scores")
        let mode = EventState<String>(label: "mode")
        bus.set(mode, to: "idle")
        let board = Scoreboard(bus: bus, scores: scores, mode: mode)
        await Task.detached {
            for score in 0..<20 { bus.publish(scores, score) }
            bus.set(mode, to: "playing")
        }.value
        await bus.drain()
        #expect(board.offMain == 0)
        #expect(board.scores == Array(0..<20))
        #expect(board.modes == ["idle", "playing"])
    }

    @Test("a closure written in an actor that uses its state runs on the actor, in order")
    func actorClosure() async {
        let bus = EventBus(label: "inherit-actor")
        let tally = Tally()
        let handle = await tally.register(on: bus)
        for value in 0..<50 { Reading(value: value).queue(on: bus) }
        await bus.drain()
        #expect(await tally.values == Array(0..<50))
        handle.cancel()
    }

    @Test("a closure written in nonisolated code runs in the caller's context as before; synchronous stays synchronous")
    func nonisolatedClosure() async {
        let bus = EventBus(label: "inherit-none")
        let seen = CoreRecorder<Int>()
        let handle = bus.listen(Reading.self) { reading, _ in seen.append(reading.value) }
        let synchronous = bus.listen(Reading.self, executeOn: .synchronous) { reading, _ in
            seen.append(-reading.value)
        }
        Reading(value: 1).dispatchNow(on: bus)
        #expect(seen.values.contains(-1))
        await bus.drain()
        #expect(seen.values.sorted() == [-1, 1])
        handle.cancel()
        synchronous.cancel()
    }
}
