// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: owners")
struct AdversarialOwnersTests {
    @Test(
        "L2/R1: an owner freed while its events wait in the receiver's mailbox: none runs, each counted ownerReleased",
        arguments: [AdvMode.listenerThread, .thread, .requester, .queue])
    func ownerFreedWhileQueued(mode: AdvMode) async {
        let bus = EventBus(label: "adv-ownerQueued-\(mode)")
        let letters = bus.deadLetters()
        let place = AdvPlace(bus)
        let gate = CoreGate()
        let context = place.context(mode)
        let ownerBox = LockedValue<AdvOwner?>(AdvOwner())
        weak let weakOwner = ownerBox.withLock { $0 }
        let calls = CoreCounter()
        if mode == .requester || mode == .queue {
            // Block the owner's own context: its first event blocks there.
            bus.listen(AdvTick.self, owner: ownerBox.withLock { $0! }, executeOn: context) { tick, _ in
                if tick.n == 0 { gate.block() } else { calls.increment() }
            }
        } else {
            bus.listen(AdvTick.self, executeOn: context) { tick, _ in if tick.n == 0 { gate.block() } }
            bus.listen(AdvTick.self, owner: ownerBox.withLock { $0! }, executeOn: context) { _, _ in calls.increment() }
        }
        bus.queue(AdvTick(n: 0))
        await gate.waitUntilEntered()
        for n in 1...20 { bus.queue(AdvTick(n: n)) }
        ownerBox.withLock { $0 = nil }
        gate.open()
        await bus.drain()
        #expect(weakOwner == nil)
        #expect(calls.count == 0)
        let ledger = await AccountingLedger.close(bus, letters: letters)
        // On a shared receiver the owner's listener also had event 0, behind the gate.
        let expected = (mode == .requester || mode == .queue) ? 20 : 21
        #expect(ledger.statistics.ownerReleased == expected, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }

    @Test(
        "L2: an owner freed from inside its own handler: that handler finishes, later events are ownerReleased",
        arguments: [AdvMode.synchronous, .listenerThread, .taskThread, .requester, .queue, .thread])
    func ownerFreedInOwnHandler(mode: AdvMode) async {
        let bus = EventBus(label: "adv-ownerInHandler-\(mode)")
        let letters = bus.deadLetters()
        let place = AdvPlace(bus)
        let context = place.context(mode)
        let ownerBox = LockedValue<AdvOwner?>(AdvOwner())
        weak let weakOwner = ownerBox.withLock { $0 }
        let calls = CoreCounter()
        let handle = bus.listen(AdvTick.self, owner: ownerBox.withLock { $0! }, executeOn: context) { _, _ in
            calls.increment()
            ownerBox.withLock { $0 = nil }
        }
        for n in 0..<20 { bus.queue(AdvTick(n: n)) }
        await bus.drain()
        #expect(weakOwner == nil)
        #expect(!handle.isActive)
        if mode.isSerial { #expect(calls.count == 1) }
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == calls.count, "\(ledger.statistics)")
        #expect(ledger.outcomes == 20, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }

    @Test("L2 (control): a closure listener's owner released inside an interceptor's wrapper is kept for the handler")
    func ownerKeptThroughInterceptor() async {
        let bus = EventBus(label: "adv-ownerInterceptor")
        let letters = bus.deadLetters()
        let sinkBox = LockedValue<AdvSink?>(nil)
        let ownerBox = LockedValue<AdvOwner?>(AdvOwner())
        let calls = CoreCounter()
        bus.listen(AdvTick.self, owner: ownerBox.withLock { $0! }, executeOn: .listenerThread) { _, _ in
            calls.increment()
        }
        let interception = bus.addInterceptor(AdvReleasingInterceptor(sinkBox: sinkBox, ownerBox: ownerBox))
        bus.queue(AdvTick(n: 0))
        bus.queue(AdvTick(n: 1))
        await bus.drain()
        interception.cancel()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == calls.count, "\(ledger.statistics)")
        #expect(ledger.outcomes == 2)
        ledger.expectLettersMatchCounters()
    }
}
