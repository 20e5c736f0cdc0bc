// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

@Suite("Dispatch and order (D1–D6)")
struct DispatchOrderTests {
    @Test("D1: queue() and stack() return at once from any thread while the handler is busy")
    func dispatchNeverWaitsOnAHandler() async {
        let bus = EventBus(label: "D1")
        let gate = CoreGate()
        let received = CoreRecorder<EventMetadata>()
        let gateHandle = bus.listen(GateEvent.self, executeOn: .listenerThread) { _, _ in gate.block() }
        let handle = bus.listen(Labelled.self, executeOn: .listenerThread) { _, metadata in received.append(metadata) }
        GateEvent().queue(on: bus)
        await gate.waitUntilEntered()
        // The only receiver is blocked; every dispatch below must still return.
        Labelled(label: "queued").queue(on: bus)
        Labelled(label: "stacked").stack(on: bus)
        await coreOnThreads(4) { _ in
            for _ in 0..<250 { Labelled(label: "from a thread").queue(on: bus, priority: .low) }
        }
        #expect(received.count == 0, "nothing ran while the receiver was blocked")
        gate.open()
        await bus.drain()
        #expect(received.count == 1_002)
        #expect(received.values.filter { $0.method == .stack }.map(\.priority) == [.normal], "default is .normal")
        #expect(received.values.filter { $0.priority == .normal }.count == 2)
        gateHandle.cancel()
        handle.cancel()
    }

    @Test("D2: five priorities, handled highest to lowest within one batch")
    func fivePriorities() async {
        #expect(EventPriority.allCases == [.highest, .high, .normal, .low, .lowest])
        #expect(EventPriority.lowest < .highest)
        let bus = EventBus(label: "D2")
        let gate = CoreGate()
        let order = CoreRecorder<String>()
        let gateHandle = bus.listen(GateEvent.self, executeOn: .listenerThread) { _, _ in gate.block() }
        let handle = bus.listen(Labelled.self, executeOn: .listenerThread) { event, _ in order.append(event.label) }
        GateEvent().queue(on: bus)
        await gate.waitUntilEntered()
        for priority in EventPriority.allCases.reversed() {
            Labelled(label: "\(priority)").queue(on: bus, priority: priority)
        }
        gate.open()
        await bus.drain()
        #expect(order.values == ["highest", "high", "normal", "low", "lowest"])
        gateHandle.cancel()
        handle.cancel()
    }

    @Test("D3: the README batch q1 s1 q2 s2 s3 q3 runs as s3 s1 s2 q2 q1 q3")
    func readmeBatchOrder() async {
        let bus = EventBus(label: "D3")
        let gate = CoreGate()
        let order = CoreRecorder<String>()
        let gateHandle = bus.listen(GateEvent.self, executeOn: .listenerThread) { _, _ in gate.block() }
        let handle = bus.listen(Labelled.self, executeOn: .listenerThread) { event, _ in order.append(event.label) }
        GateEvent().queue(on: bus)
        await gate.waitUntilEntered()
        Labelled(label: "q1").queue(on: bus, priority: .normal)
        Labelled(label: "s1").stack(on: bus, priority: .normal)
        Labelled(label: "q2").queue(on: bus, priority: .high)
        Labelled(label: "s2").stack(on: bus, priority: .low)
        Labelled(label: "s3").stack(on: bus, priority: .normal)
        Labelled(label: "q3").queue(on: bus, priority: .lowest)
        gate.open()
        await bus.drain()
        #expect(order.values == ["s3", "s1", "s2", "q2", "q1", "q3"])
        gateHandle.cancel()
        handle.cancel()
    }

    @Test("D3: a stacked event reaches one receiver's listeners in registration order, another's between them")
    func stackedEventKeepsRegistrationOrder() async {
        // The listener thread's two listeners are not neighbours in the route (a synchronous one
        // sits between them), so each gets a node of its own: both wait in one batch, whose
        // stacked lane runs newest first.
        let bus = EventBus(label: "D3-stacked-order")
        let gate = CoreGate()
        let order = CoreRecorder<String>()
        let gateHandle = bus.listen(GateEvent.self, executeOn: .listenerThread) { _, _ in gate.block() }
        let first = bus.listen(Labelled.self, executeOn: .listenerThread) { event, _ in order.append("A " + event.label)
        }
        let between = bus.listen(Labelled.self, executeOn: .synchronous) { _, _ in }
        let second = bus.listen(Labelled.self, executeOn: .listenerThread) { event, _ in
            order.append("C " + event.label)
        }
        GateEvent().queue(on: bus)
        await gate.waitUntilEntered()
        Labelled(label: "s1").stack(on: bus)
        Labelled(label: "s2").stack(on: bus)
        gate.open()
        await bus.drain()
        #expect(order.values == ["A s2", "C s2", "A s1", "C s1"])
        for handle in [gateHandle, first, between, second] { handle.cancel() }
    }

    @Test("D3: stacked events streaming to one receiver's non-adjacent listeners run each in registration order")
    func streamedStackedEventsKeepRegistrationOrder() async {
        // No gate: the receiver takes the events in batches of any size, one node at a time too.
        let bus = EventBus(label: "D3-stacked-stream")
        let order = CoreRecorder<String>()
        let first = bus.listen(Numbered.self, executeOn: .listenerThread) { event, _ in
            order.append("A \(event.index)")
        }
        let between = bus.listen(Numbered.self, executeOn: .synchronous) { _, _ in }
        let second = bus.listen(Numbered.self, executeOn: .listenerThread) { event, _ in
            order.append("C \(event.index)")
        }
        let events = 20_000
        await coreOnPlainThread { for index in 0..<events { Numbered(producer: 0, index: index).stack(on: bus) } }
        await bus.drain()
        let seen = order.values
        #expect(seen.count == 2 * events)
        let pairs = stride(from: 0, to: seen.count - 1, by: 2).map { [seen[$0], seen[$0 + 1]] }
        #expect(pairs.allSatisfy { $0[0].hasPrefix("A ") && $0[1] == "C " + $0[0].dropFirst(2) })
        for handle in [first, between, second] { handle.cancel() }
    }

    @Test("D3: an event that arrives while a batch runs waits for the next batch, even when stacked .highest")
    func lateArrivalsWaitForTheNextTurn() async {
        let bus = EventBus(label: "D3-late")
        let gate = CoreGate()
        let order = CoreRecorder<String>()
        let gateHandle = bus.listen(GateEvent.self, executeOn: .listenerThread) { _, _ in gate.block() }
        let handle = bus.listen(Labelled.self, executeOn: .listenerThread) { event, _ in
            order.append(event.label)
            if event.label == "first" { Labelled(label: "late").stack(on: bus, priority: .highest) }
        }
        GateEvent().queue(on: bus)
        await gate.waitUntilEntered()
        Labelled(label: "first").queue(on: bus, priority: .highest)
        Labelled(label: "second").queue(on: bus, priority: .lowest)
        gate.open()
        await bus.drain()
        await bus.drain()
        #expect(order.values == ["first", "second", "late"])
        gateHandle.cancel()
        handle.cancel()
    }

    @Test("D4: 100,000 queued events from one producer arrive in dispatch order")
    func fifoHundredThousand() async {
        let bus = EventBus(label: "D4")
        let checker = SequenceChecker(producers: 1)
        let handle = bus.listen(Numbered.self, executeOn: .listenerThread) { event, _ in checker.receive(event) }
        await coreOnPlainThread { for index in 0..<100_000 { Numbered(producer: 0, index: index).queue(on: bus) } }
        await bus.drain()
        #expect(checker.total == 100_000)
        #expect(checker.outOfOrder == 0)
        #expect(bus.statistics.delivered == 100_000)
        handle.cancel()
    }

    @Test("D4/R1: 4 producers × 250,000 events to one listener: none lost, none duplicated, each producer in order")
    func fourProducersOneListener() async {
        let producers = 4
        let perProducer = coreUnderThreadSanitizer ? 25_000 : 250_000
        let bus = EventBus(label: "D4-producers")
        let checker = SequenceChecker(producers: producers)
        let handle = bus.listen(Numbered.self, executeOn: .listenerThread) { event, _ in checker.receive(event) }
        await coreOnThreads(producers) { producer in
            for index in 0..<perProducer { Numbered(producer: producer, index: index).queue(on: bus) }
        }
        await bus.drain()
        #expect(checker.total == producers * perProducer)
        #expect(checker.outOfOrder == 0)
        #expect(checker.next == Array(repeating: perProducer, count: producers))
        let statistics = bus.statistics
        #expect(statistics.delivered == producers * perProducer)
        #expect(statistics.discarded == 0 && statistics.undelivered == 0)
        handle.cancel()
    }

    @Test("D5: handlers may dispatch, on every delivery mode, without deadlock")
    func dispatchFromHandlers() async {
        let bus = EventBus(label: "D5")
        let done = DispatchSemaphore(value: 0)
        let steps = CoreCounter()
        // A listener-thread chain: each handler dispatches the next step to itself.
        let chain = bus.listen(Chain.self, executeOn: .listenerThread) { event, _ in
            steps.increment()
            if event.step < 1_000 {
                Chain(step: event.step + 1).queue(on: bus)
            } else {
                done.signal()
            }
        }
        // A synchronous listener that dispatches to itself recursively, on the caller's stack.
        let depth = CoreCounter()
        let recursive = bus.listen(Labelled.self, executeOn: .synchronous) { event, _ in
            depth.increment()
            if event.label.count < 50 { Labelled(label: event.label + "x").stack(on: bus) }
        }
        Chain(step: 1).queue(on: bus)
        Labelled(label: "x").queue(on: bus)
        #expect(depth.count == 50, "synchronous recursion completes before queue() returns")
        await coreWait(done)
        #expect(steps.count == 1_000)
        chain.cancel()
        recursive.cancel()
    }

    @Test("D6: local buses are independent of each other and of EventCentral.shared")
    func localBusesAreIsolated() async {
        let busA = EventBus(label: "D6-A")
        let busB = EventBus(label: "D6-B")
        let onA = CoreRecorder<String>()
        let onB = CoreRecorder<String>()
        let onCentral = CoreRecorder<String>()
        let handleA = busA.listen(CentralOnly.self, executeOn: .synchronous) { event, _ in onA.append(event.origin) }
        let handleB = busB.listen(CentralOnly.self, executeOn: .synchronous) { event, _ in onB.append(event.origin) }
        let central = EventCentral.shared.listen(CentralOnly.self, executeOn: .synchronous) { event, _ in
            onCentral.append(event.origin)
        }
        CentralOnly(origin: "A").queue(on: busA)
        CentralOnly(origin: "B").stack(on: busB)
        CentralOnly(origin: "central").queue()
        #expect(onA.values == ["A"])
        #expect(onB.values == ["B"])
        #expect(onCentral.values == ["central"])
        await busB.shutdown()
        CentralOnly(origin: "A again").queue(on: busA)
        #expect(onA.values == ["A", "A again"], "shutting down one bus leaves the others running")
        #expect(busB.isShutDown && !busA.isShutDown && !EventCentral.shared.isShutDown)
        handleA.cancel()
        handleB.cancel()
        central.cancel()
    }
}

extension DispatchOrderTests {
    struct GateEvent: Eventable {}

    struct Labelled: Eventable {
        let label: String
    }

    struct Numbered: Eventable {
        let producer: Int
        let index: Int
    }

    struct Chain: Eventable {
        let step: Int
    }

    struct CentralOnly: Eventable {
        let origin: String
    }

    /// Checks that each producer's events arrive exactly once and in order. Touched only by one
    /// serial listener; read after `drain()`, which orders those writes before the read.
    final class SequenceChecker: @unchecked Sendable {  // written only by one serial listener, read after drain()
        var next: [Int]
        var outOfOrder = 0
        var total = 0

        init(producers: Int) {
            next = Array(repeating: 0, count: producers)
        }

        func receive(_ event: Numbered) {
            if event.index != next[event.producer] { outOfOrder += 1 }
            next[event.producer] = event.index + 1
            total += 1
        }
    }
}
