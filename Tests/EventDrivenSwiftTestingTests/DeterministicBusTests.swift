// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import EventDrivenSwiftTesting
import Testing

@Suite("K1: EventBus.deterministic")
struct DeterministicBusTests {
    @Test("every executeOn but .mainActor has run, in registration order, when queue returns")
    func everyListenerRunsBeforeQueueReturns() async {
        let bus = EventBus.deterministic(label: "deterministic.listeners")
        #expect(bus.isDeterministic)
        let seen = Collected<String>()
        bus.listen(Reading.self, executeOn: .taskThread) { _, _ in seen.append("task") }
        bus.listen(Reading.self, executeOn: .listenerThread) { _, _ in seen.append("listener") }
        bus.listen(Reading.self) { _, _ in seen.append("requester") }
        bus.listen(Reading.self, executeOn: .synchronous) { _, _ in seen.append("synchronous") }
        let owner = Owner()
        Reading.addListener(owner, Owner.onReading, on: bus)
        Reading(celsius: 1).queue(on: bus)
        #expect(seen.values == ["task", "listener", "requester", "synchronous"])
        #expect(owner.readings.values == [1])
        await bus.shutdown()
    }

    @Test("no reordering: each event is handled when it is dispatched, stacked or queued, whatever its priority")
    func dispatchOrderIsHandlingOrder() async {
        let bus = EventBus.deterministic()
        let seen = Collected<Float>()
        bus.listen(Reading.self, executeOn: .listenerThread) { event, _ in seen.append(event.celsius) }
        Reading(celsius: 1).queue(on: bus, priority: .lowest)
        Reading(celsius: 2).stack(on: bus, priority: .highest)
        Reading(celsius: 3).queue(on: bus, priority: .high)
        #expect(seen.values == [1, 2, 3])
        await bus.shutdown()
    }

    @Test("a handler that dispatches runs that event's handlers before its own dispatch returns")
    func nestedDispatchIsDepthFirst() async {
        let bus = EventBus.deterministic()
        let seen = Collected<String>()
        bus.listen(Reading.self) { event, _ in
            seen.append("reading \(Int(event.celsius))")
            if event.celsius > 30 { Unrecorded().queue(on: bus) }
            seen.append("after \(Int(event.celsius))")
        }
        bus.listen(Unrecorded.self, executeOn: .taskThread) { _, _ in seen.append("alarm") }
        Reading(celsius: 35).queue(on: bus)
        #expect(seen.values == ["reading 35", "alarm", "after 35"])
        await bus.shutdown()
    }

    @Test("a chain of handlers that queue the next event stops at maximumSynchronousDepth, as documented")
    func queuedChainIsBoundedByTheSynchronousDepth() async {
        let bus = EventBus.deterministic()
        let links = Collected<Int>()
        bus.listen(Reading.self) { event, _ in
            links.append(Int(event.celsius))
            if event.celsius < 200 { Reading(celsius: event.celsius + 1).queue(on: bus) }
        }
        Reading(celsius: 0).queue(on: bus)
        #expect(links.values == Array(0..<EventBus.maximumSynchronousDepth))
        #expect(bus.statistics.failed >= 1)
        await bus.shutdown()
    }

    @Test("channel and state subscribers run synchronously too")
    func channelsAndStates() async {
        let bus = EventBus.deterministic()
        let chat = EventChannel<String>(label: "chat")
        let mode = EventState<Int>(label: "mode")
        let seen = Collected<String>()
        bus.subscribe(chat, on: .listenerThread) { message in seen.append(message) }
        bus.subscribe(mode, on: .taskThread) { value in seen.append("mode \(value)") }
        bus.publish(chat, "hello")
        bus.set(mode, to: 2)
        #expect(seen.values == ["hello", "mode 2"])
        await bus.shutdown()
    }

    @Test("main-actor listeners keep the main actor; drain() waits for them")
    @MainActor
    func mainActorListenersStayOnTheMainActor() async {
        let bus = EventBus.deterministic()
        let screen = Screen()
        Reading.addListener(screen, screen.show, on: bus)
        Reading(celsius: 21).queue(on: bus)
        await bus.drain()
        #expect(screen.lines == ["21.0"])
        await bus.shutdown()
    }

    @Test("an ordinary bus is not deterministic")
    func ordinaryBus() {
        #expect(!EventBus(label: "ordinary").isDeterministic)
    }
}

/// A listener owner whose unapplied method the bus calls.
final class Owner: Sendable {
    let readings = Collected<Float>()
    func onReading(_ event: Reading, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        readings.append(event.celsius)
    }
}

/// A main-actor view of readings.
@MainActor
final class Screen {
    var lines: [String] = []
    func show(_ event: Reading, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        lines.append("\(event.celsius)")
    }
}
