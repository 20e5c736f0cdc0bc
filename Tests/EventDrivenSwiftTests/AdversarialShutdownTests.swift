// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: shutdown, twice, concurrently, from inside")
struct AdversarialShutdownTests {
    @Test(
        "R5: graceful, immediate and deadline shutdowns at once, twice each, while producers dispatch: each returns with final counts"
    )
    func concurrentShutdowns() async {
        let bus = EventBus(label: "adv-concurrentShutdowns")
        let letters = bus.deadLetters()
        let place = AdvPlace(bus)
        let calls = CoreCounter()
        place.listen(AdvTick.self, .listenerThread) { _ in calls.increment() }
        place.listen(AdvTick.self, .async) { _ in calls.increment() }
        place.listen(AdvTick.self, .thread) { _ in calls.increment() }
        let produced = CoreCounter()
        let stop = LockedValue(false)
        let producersDone = AdvLatch()
        let producers = Thread {
            var n = 0
            while !stop.withLock({ $0 }) && n < 200_000 {
                bus.queue(AdvTick(n: n))
                produced.increment()
                n += 1
            }
            producersDone.open()
        }
        producers.start()
        _ = await coreEventually { produced.count > 2_000 }
        let snapshots = LockedValue<[EventBusStatistics]>([])
        await withTaskGroup(of: Void.self) { group in
            for kind in 0..<6 {
                group.addTask {
                    switch kind % 3 {
                    case 0: await bus.shutdown()
                    case 1: await bus.shutdown(immediately: true)
                    default: _ = await bus.shutdown(gracefullyWithin: .milliseconds(50))
                    }
                    let snapshot = bus.statistics
                    snapshots.withLock { $0.append(snapshot) }
                }
            }
        }
        stop.withLock { $0 = true }
        await producersDone.wait()
        #expect(bus.isShutDown)
        let final = bus.statistics
        var ledgerLetters: [DeadLetter.Reason: Int] = [:]
        for await letter in letters { ledgerLetters[letter.reason, default: 0] += 1 }
        let ledger = AccountingLedger(statistics: final, letters: ledgerLetters)
        let accepted = produced.count - final.rejected
        #expect(ledger.outcomes == 3 * accepted, "\(final); produced \(produced.count)")
        #expect(final.delivered == calls.count)
        ledger.expectLettersMatchCounters()
        for snapshot in snapshots.withLock({ $0 }) {
            var s = snapshot
            s.rejected = final.rejected
            s.rejectedWhileStopping = final.rejectedWhileStopping
            #expect(s == final, "a shutdown returned before the counts were final: \(snapshot)")
        }
        await bus.shutdown()  // once more, after: returns
    }

    @Test(
        "R5/D5: a handler starts the bus's shutdown at its fifth event, on every mode: it completes and every event is accounted for",
        arguments: AdvMode.allCases)
    func shutdownFromHandler(mode: AdvMode) async {
        let bus = EventBus(label: "adv-shutdownFromHandler-\(mode)")
        let letters = bus.deadLetters()
        let place = AdvPlace(bus)
        let calls = CoreCounter()
        let finished = AdvLatch()
        place.listen(AdvTick.self, mode) { _ in
            if calls.increment() == 5 {
                Task {
                    await bus.shutdown()
                    finished.open()
                }
            }
        }
        for n in 0..<50 { bus.queue(AdvTick(n: n)) }
        await finished.wait()
        #expect(bus.isShutDown)
        // From a task a handler started, shutdown() only starts the shutdown (documented); a
        // second call returns once it has finished, with the counts final.
        await bus.shutdown()
        let s = bus.statistics
        var counts: [DeadLetter.Reason: Int] = [:]
        for await letter in letters { counts[letter.reason, default: 0] += 1 }
        let ledger = AccountingLedger(statistics: s, letters: counts)
        #expect(s.delivered == calls.count)
        #expect(ledger.outcomes + s.rejected == 50, "\(s)")
        ledger.expectLettersMatchCounters()
    }
}
