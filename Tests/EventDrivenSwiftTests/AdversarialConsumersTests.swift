// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: latest-only batches, consumers, 5.2 forms")
struct AdversarialConsumersTests {
    @Test(
        "L5/D3: .latestOnly in one batch where the newest event is stacked at the highest priority and runs first: only it runs"
    )
    func latestOnlyNewestRunsFirstInBatch() async throws {
        let bus = EventBus(label: "p2-latestFirst")
        let letters = bus.deadLetters()
        let latest = CoreRecorder<Int>()
        let all = CoreRecorder<Int>()
        let h1 = bus.listen(P2Tick.self, executeOn: .listenerThread, interestedIn: .latestOnly) { tick, _ in
            latest.append(tick.n)
        }
        let h2 = bus.listen(P2Tick.self, executeOn: .listenerThread) { tick, _ in all.append(tick.n) }
        let (gate, h3) = await blockListenerThread(bus)
        P2Tick(n: 1).queue(on: bus, priority: .low)
        P2Tick(n: 2).queue(on: bus, priority: .normal)
        P2Tick(n: 3).stack(on: bus, priority: .highest)  // the newest; the batch runs it first
        gate.open()
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        #expect(all.values == [3, 2, 1])
        #expect(latest.values == [3], "a newer event (3) was dispatched before 2 and 1 were delivered")
        h1.cancel()
        h2.cancel()
        h3.cancel()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.superseded == 2, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }

    @Test("L5/D3: .latestOnly in one batch where the newest event is queued at the lowest priority and runs last")
    func latestOnlyNewestRunsLastInBatch() async throws {
        let bus = EventBus(label: "p2-latestLast")
        let letters = bus.deadLetters()
        let latest = CoreRecorder<Int>()
        let h1 = bus.listen(P2Tick.self, executeOn: .listenerThread, interestedIn: .latestOnly) { tick, _ in
            latest.append(tick.n)
        }
        let (gate, h3) = await blockListenerThread(bus)
        P2Tick(n: 1).stack(on: bus, priority: .highest)
        P2Tick(n: 2).queue(on: bus, priority: .highest)
        P2Tick(n: 3).queue(on: bus, priority: .lowest)  // the newest; the batch runs it last
        gate.open()
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        #expect(latest.values == [3])
        h1.cancel()
        h3.cancel()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.superseded == 2 && ledger.statistics.delivered == 2, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }

    @Test("L5: .latestOnly on a .thread(t) context and a .queue(q) context with a backlog: only the newest runs")
    func latestOnlyOtherContexts() async throws {
        let bus = EventBus(label: "p2-latestCtx")
        let host = AdvHost(bus: bus)
        let queue = DispatchQueue(label: "p2-latest-q")
        let onThread = CoreRecorder<Int>()
        let onQueue = CoreRecorder<Int>()
        let gate = CoreGate()
        let blocker = bus.listen(P2Block.self, executeOn: .thread(host)) { _, _ in gate.block() }
        let qGate = DispatchSemaphore(value: 0)
        queue.async { qGate.wait() }
        let h1 = bus.listen(P2Tick.self, executeOn: .thread(host), interestedIn: .latestOnly) { tick, _ in
            onThread.append(tick.n)
        }
        let h2 = bus.listen(P2Tick.self, executeOn: .queue(queue), interestedIn: .latestOnly) { tick, _ in
            onQueue.append(tick.n)
        }
        P2Block().queue(on: bus)
        await gate.waitUntilEntered()
        for n in 0..<10 { P2Tick(n: n).queue(on: bus, priority: n % 2 == 0 ? .high : .low) }
        P2Tick(n: 10).stack(on: bus, priority: .lowest)
        gate.open()
        qGate.signal()
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        #expect(onThread.values == [10])
        #expect(onQueue.values == [10])
        blocker.cancel()
        h1.cancel()
        h2.cancel()
        await bus.shutdown()
        #expect(bus.statistics.superseded == 20, "\(bus.statistics)")
    }

    @Test(
        "W1/W3: a catch-all consumer gets no notices; one that lists DidConsumeEvent gets every notice but makes none of its own"
    )
    func catchAllAndNotices() async throws {
        let bus = EventBus(label: "p2-notices")
        let letters = bus.deadLetters()
        let noticing = P2Consumer([AllEvents.self, DidConsumeEvent.self])
        let catchAll = P2Consumer([AllEvents.self])
        let notices = CoreRecorder<String>()
        #expect(bus.register(noticing))
        #expect(bus.register(catchAll))
        let handle = bus.listen(DidConsumeEvent.self, executeOn: .synchronous) { notice, _ in
            notices.append("\(type(of: notice.consumer))/\(type(of: notice.event))")
        }
        bus.dispatchNow(P2Tick(n: 1))
        #expect(catchAll.seen.values == ["tick1"])
        #expect(noticing.seen.values.filter { $0 == "tick1" }.count == 1)
        #expect(noticing.seen.values.filter { $0.hasPrefix("notice") }.count == 2, "\(noticing.seen.values)")
        #expect(notices.values == ["P2Consumer/P2Tick", "P2Consumer/P2Tick"], "\(notices.values)")
        handle.cancel()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        // tick1 → 2 consumers; 2 notices → the noticing consumer and the listener each.
        #expect(ledger.statistics.delivered == 6, "\(ledger.statistics)")
        #expect(ledger.statistics.undelivered == 0, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
        _ = (noticing, catchAll)
    }

    @Test("W1: exclusions subtract from the catch-all; NoEvent consumes nothing and does not stop later consumers")
    func exclusionsAndNoEvent() async {
        let bus = EventBus(label: "p2-exclude")
        let letters = bus.deadLetters()
        let allButTicks = P2Consumer([AllEvents.self], excluding: [P2Tick.self])
        let nothing = P2Consumer([P2Tick.self, NoEvent.self])
        let excludesAll = P2Consumer([P2Tick.self, P2Other.self], excluding: [AllEvents.self])
        let noNotices = P2Consumer([AllEvents.self, DidConsumeEvent.self], excluding: [DidConsumeEvent.self])
        let ticks = P2Consumer([P2Tick.self])
        for consumer in [allButTicks, nothing, excludesAll, noNotices, ticks] { #expect(bus.register(consumer)) }
        bus.dispatchNow(P2Tick(n: 1))
        P2Other(n: 2).queue(on: bus)
        #expect(allButTicks.seen.values == ["other2"])
        #expect(nothing.seen.values.isEmpty)
        #expect(excludesAll.seen.values.isEmpty)
        #expect(noNotices.seen.values == ["tick1", "other2"])
        #expect(ticks.seen.values == ["tick1"])
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == 4 && ledger.statistics.undelivered == 0, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
        _ = (allButTicks, nothing, excludesAll, noNotices, ticks)
    }

    @Test("W2/R6: a consumer that unregisters itself inside consume gets nothing more; the others get every event")
    func consumerUnregistersItself() async {
        let bus = EventBus(label: "p2-unregister")
        let quitter = P2Consumer([P2Tick.self]) { consumer, _ in
            _ = bus.unregister(consumer)
        }
        let stayer = P2Consumer([P2Tick.self])
        #expect(bus.register(quitter) && bus.register(stayer))
        #expect(bus.consumerCount == 2)
        for n in 0..<3 { bus.dispatchNow(P2Tick(n: n)) }
        #expect(quitter.seen.values == ["tick0"])
        #expect(stayer.seen.values == ["tick0", "tick1", "tick2"])
        #expect(bus.consumerCount == 1)
        #expect(!bus.unregister(quitter))
        await bus.shutdown()
        #expect(bus.statistics.delivered == 4, "\(bus.statistics)")
    }

    @Test("W4/R1: a consumer freed while registered: later events are undelivered, not consumed by a ghost")
    func consumerFreed() async {
        let bus = EventBus(label: "p2-freedConsumer")
        let letters = bus.deadLetters()
        weak var weakConsumer: P2Consumer?
        do {
            let consumer = P2Consumer([P2Tick.self])
            weakConsumer = consumer
            #expect(bus.register(consumer))
            bus.dispatchNow(P2Tick(n: 0))
            #expect(consumer.seen.count == 1)
        }
        #expect(weakConsumer == nil)
        bus.dispatchNow(P2Tick(n: 1))
        #expect(bus.consumerCount == 0)
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == 1 && ledger.statistics.undelivered == 1, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }

    @Test("W1: the bus reads willConsume and excludeList once, at registration")
    func consumerListsReadOnce() async {
        let bus = EventBus(label: "p2-listsOnce")
        let consumer = P2ChangingConsumer()
        #expect(bus.register(consumer))
        consumer.lists.withLock { $0 = ([P2Other.self], [P2Tick.self]) }
        bus.dispatchNow(P2Tick(n: 1))
        bus.dispatchNow(P2Other(n: 2))
        #expect(consumer.seen.values == ["tick1"])
        await bus.shutdown()
        #expect(bus.statistics.undelivered == 1, "\(bus.statistics)")
    }

    @Test(
        "L1/L6/L7: 5.2's addListener with an unapplied method: maximumAge 1 ns expires all; a priority filter keeps .high"
    )
    func fiveTwoForms() async throws {
        let bus = EventBus(label: "p2-five-two")
        let owner = P2MethodOwner()
        let young = P2Tick.addListener(
            owner, P2MethodOwner.onTick, executeOn: .listenerThread, interestedIn: .youngerThan, maximumAge: 1, on: bus)
        let picky = P2Other.addListener(
            owner, P2MethodOwner.onOther, executeOn: .listenerThread, interestedIn: .custom,
            customFilter: { _, priority, _ in priority == .high }, on: bus)
        #expect(young.registrationError == nil && picky.registrationError == nil)
        let (gate, blocker) = await blockListenerThread(bus)
        for n in 0..<3 { P2Tick(n: n).queue(on: bus) }
        P2Other(n: 0).queue(on: bus, priority: .low)
        P2Other(n: 1).stack(on: bus, priority: .high)
        P2Other(n: 2).queue(on: bus, priority: .highest)
        gate.open()
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        #expect(owner.ticks.values.isEmpty)
        #expect(owner.others.values == [1])
        young.cancel()
        picky.cancel()
        blocker.cancel()
        await bus.shutdown()
        #expect(bus.statistics.expired == 3 && bus.statistics.filtered == 2, "\(bus.statistics)")
    }
}
