// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: streams and dead letters")
struct AdversarialStreamsTests {
    @Test(
        "A1/R1: bufferingNewest(2) and bufferingOldest(2) streams left unread: the rest is dropped, counted, dead-lettered"
    )
    func boundedStreamsDropAndCount() async {
        let bus = EventBus(label: "p2-streamDrop")
        let letters = bus.deadLetters()
        let newest = bus.events(of: P2Tick.self, bufferingPolicy: .bufferingNewest(2))
        let oldest = bus.events(of: P2Tick.self, bufferingPolicy: .bufferingOldest(2))
        for n in 0..<10 { P2Tick(n: n).queue(on: bus) }
        await bus.drain()
        #expect(bus.statistics.dropped == 16, "\(bus.statistics)")
        var newestIterator = newest.makeAsyncIterator()
        var oldestIterator = oldest.makeAsyncIterator()
        #expect(await newestIterator.next()?.n == 8)
        #expect(await newestIterator.next()?.n == 9)
        #expect(await oldestIterator.next()?.n == 0)
        #expect(await oldestIterator.next()?.n == 1)
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(await newestIterator.next() == nil)
        #expect(await oldestIterator.next() == nil)
        #expect(ledger.statistics.delivered == 4 && ledger.statistics.dropped == 16, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }

    @Test("A1/R1: a stream with a zero-sized buffer and no waiting reader: every event is dropped and counted")
    func zeroBufferStream() async {
        let bus = EventBus(label: "p2-streamZero")
        let letters = bus.deadLetters()
        let newest = bus.events(of: P2Tick.self, bufferingPolicy: .bufferingNewest(0))
        let oldest = bus.events(of: P2Tick.self, bufferingPolicy: .bufferingOldest(0))
        for n in 0..<5 { P2Tick(n: n).queue(on: bus) }
        await bus.drain()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        var a = newest.makeAsyncIterator()
        var b = oldest.makeAsyncIterator()
        let fromNewest = await a.next()
        let fromOldest = await b.next()
        #expect(fromNewest == nil && fromOldest == nil)
        #expect(ledger.statistics.dropped == 10 && ledger.statistics.delivered == 0, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }

    @Test(
        "A1/R1: a stream's consuming task cancelled with events buffered: the rest is discarded, once, and the bus adds up"
    )
    func streamTaskCancelledWithBuffer() async throws {
        let bus = EventBus(label: "p2-streamCancel")
        let letters = bus.deadLetters()
        let stream = bus.events(of: P2Tick.self)
        for n in 0..<6 { P2Tick(n: n).queue(on: bus) }
        await bus.drain()
        let taken = await Task {
            var got: [Int] = []
            for await tick in stream {
                got.append(tick.n)
                if got.count == 2 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return got
        }.value
        #expect(taken.count <= 3 && taken.prefix(2) == [0, 1], "\(taken)")
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == taken.count, "\(ledger.statistics)")
        #expect(ledger.statistics.discarded == 6 - taken.count, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }

    @Test(
        "R5/A1: events buffered in a stream at shutdown are yielded afterwards, then the stream ends; a later stream ends at once"
    )
    func streamYieldsBufferAfterShutdown() async {
        let bus = EventBus(label: "p2-streamShut")
        let stream = bus.events(of: P2Tick.self)
        for n in 0..<3 { P2Tick(n: n).queue(on: bus) }
        await bus.shutdown()
        var got: [Int] = []
        for await tick in stream { got.append(tick.n) }
        #expect(got == [0, 1, 2])
        #expect(bus.statistics.delivered == 3, "\(bus.statistics)")
        var lateIterator = bus.events(of: P2Tick.self).makeAsyncIterator()
        #expect(await lateIterator.next() == nil)
        var lateLetters = bus.deadLetters().makeAsyncIterator()
        #expect(await lateLetters.next() == nil)
    }

    @Test(
        "A1/R1: four producers race a bufferingOldest(16) stream read concurrently: delivered + dropped = dispatched, letters match"
    )
    func streamAccountingUnderRace() async throws {
        let bus = EventBus(label: "p2-streamRace")
        let letters = bus.deadLetters()
        let stream = bus.events(of: P2Tick.self, bufferingPolicy: .bufferingOldest(16))
        let reader = Task {
            var got = 0
            for await _ in stream { got += 1 }
            return got
        }
        await coreOnThreads(4) { index in
            for k in 0..<2_000 { P2Tick(n: index * 10_000 + k).queue(on: bus, priority: k % 2 == 0 ? .high : .low) }
        }
        let ledger = await AccountingLedger.close(bus, letters: letters)
        let got = await reader.value
        let s = bus.statistics
        #expect(got + s.dropped == 8_000, "read \(got), \(s)")
        #expect(s.delivered == got, "\(s)")
        #expect(ledger.statistics.dropped == s.dropped)
        ledger.expectLettersMatchCounters()
    }

    @Test("R4: two dead-letter streams each get every letter; one made mid-way gets only later letters")
    func twoDeadLetterStreams() async {
        let bus = EventBus(label: "p2-twoLetters")
        let first = bus.deadLetters()
        P2Tick(n: 0).queue(on: bus)
        let second = bus.deadLetters()
        P2Tick(n: 1).queue(on: bus)
        bus.dispatchNow(P2Tick(n: 2))
        await bus.shutdown()
        var a: [Int] = []
        var b: [Int] = []
        for await letter in first {
            if let tick = letter.event as? P2Tick, letter.reason == .undelivered { a.append(tick.n) }
        }
        for await letter in second {
            if let tick = letter.event as? P2Tick, letter.reason == .undelivered { b.append(tick.n) }
        }
        #expect(a == [0, 1, 2])
        #expect(b == [1, 2])
        #expect(bus.statistics.undelivered == 3)
    }
}
