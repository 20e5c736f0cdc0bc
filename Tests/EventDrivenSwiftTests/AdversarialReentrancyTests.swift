// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: cancelling and registering from inside handlers")
struct AdversarialReentrancyTests {
    @Test(
        "R6/L8/C4: a listener cancels its own handle at its first delivery, on every mode", arguments: AdvMode.allCases)
    func selfCancel(mode: AdvMode) async {
        let bus = EventBus(label: "adv-selfCancel-\(mode)")
        let letters = bus.deadLetters()
        let place = AdvPlace(bus)
        let calls = CoreCounter()
        let box = LockedValue<EventListenerHandle?>(nil)
        let handle = place.listen(AdvTick.self, mode) { _ in
            calls.increment()
            let own = box.withLock { $0 }
            own?.cancel()
            own?.cancel()  // twice, from inside: a no-op
        }
        box.withLock { $0 = handle }
        for n in 0..<50 { bus.queue(AdvTick(n: n)) }
        await bus.drain()
        #expect(!handle.isActive)
        if mode.isSerial { #expect(calls.count == 1) } else { #expect(calls.count >= 1) }
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == calls.count, "\(ledger.statistics)")
        #expect(ledger.outcomes == 50, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
        handle.cancel()  // after shutdown: a no-op
    }

    @Test(
        "L8/R6: a listener cancels a later-registered listener of its receiver; every delivery not started is skipped",
        arguments: AdvMode.allCases)
    func cancelOther(mode: AdvMode) async {
        let bus = EventBus(label: "adv-cancelOther-\(mode)")
        let letters = bus.deadLetters()
        let place = AdvPlace(bus)
        let aCalls = CoreCounter()
        let bCalls = CoreCounter()
        let victim = LockedValue<EventListenerHandle?>(nil)
        place.listen(AdvTick.self, mode) { _ in
            aCalls.increment()
            victim.withLock { $0 }?.cancel()
        }
        let b = place.listen(AdvTick.self, mode) { _ in bCalls.increment() }
        victim.withLock { $0 = b }
        for n in 0..<50 { bus.queue(AdvTick(n: n)) }
        await bus.drain()
        #expect(aCalls.count == 50)
        #expect(!b.isActive)
        if mode.sharesOneReceiver { #expect(bCalls.count == 0) }
        let ledger = await AccountingLedger.close(bus, letters: letters)
        let s = ledger.statistics
        #expect(s.delivered == aCalls.count + bCalls.count, "\(s)")
        // 50 pairs for A, and one for B per event dispatched before B was cancelled (at least one).
        #expect(ledger.outcomes > 50 && ledger.outcomes <= 100, "\(s)")
        #expect(ledger.outcomes - 50 >= bCalls.count, "\(s)")
        ledger.expectLettersMatchCounters()
    }

    @Test(
        "R6/R1: a listener registered from inside a handler gets only events dispatched after its registration",
        arguments: AdvMode.allCases)
    func registerFromHandler(mode: AdvMode) async {
        let bus = EventBus(label: "adv-registerFromHandler-\(mode)")
        let letters = bus.deadLetters()
        let place = AdvPlace(bus)
        let gate = CoreGate()
        let aCalls = CoreCounter()
        let lateSeen = CoreRecorder<Int>()
        let late = LockedValue<EventListenerHandle?>(nil)
        place.listen(AdvTick.self, mode) { tick in
            if aCalls.increment() == 1 {
                if mode != .synchronous { gate.block() }  // until all 50 are dispatched
                late.withLock {
                    $0 = place.listen(AdvTick.self, mode) { tick in lateSeen.append(tick.n) }
                }
            }
        }
        for n in 0..<50 { bus.queue(AdvTick(n: n)) }
        gate.open()
        await bus.drain()
        if mode == .synchronous {
            #expect(lateSeen.values == Array(1..<50))
        } else {
            #expect(lateSeen.values.isEmpty, "dispatched before it was registered: \(lateSeen.values.prefix(5))")
        }
        let before = lateSeen.count
        for n in 100..<110 { bus.queue(AdvTick(n: n)) }
        await bus.drain()
        #expect(lateSeen.count - before == 10)
        if mode.isSerial { #expect(Array(lateSeen.values.suffix(10)) == Array(100..<110)) }
        #expect(late.withLock { $0 }?.isActive == true)
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == aCalls.count + lateSeen.count, "\(ledger.statistics)")
        #expect(ledger.outcomes == 60 + lateSeen.count, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }
}
