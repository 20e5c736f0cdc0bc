// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: bounded mailboxes at capacity 1")
struct AdversarialCapacityOneTests {
    enum Overflow: String, CaseIterable, Sendable { case dropNewest, dropOldest, failDispatch, noWait, block }

    @Test(
        "R3/R1: capacity 1, two own callbacks and one .thread(t) listener: every policy accounts for every pair",
        arguments: Overflow.allCases)
    func capacityOne(policy: Overflow) async throws {
        let bus = EventBus(label: "adv-cap1-\(policy)")
        let letters = bus.deadLetters()
        let errors = coreCollectErrors(on: bus)
        let receiver: AdvBounded =
            switch policy {
            case .dropNewest: AdvDropNewest1(bus: bus)
            case .dropOldest: AdvDropOldest1(bus: bus)
            case .failDispatch: AdvFail1(bus: bus)
            case .noWait: AdvNoWait1(bus: bus)
            case .block: AdvBlock1(bus: bus)
            }
        let external = CoreCounter()
        bus.listen(AdvTick.self, executeOn: .thread(receiver)) { _, _ in external.increment() }
        bus.queue(AdvTick(n: 0))
        await receiver.gate.waitUntilEntered()
        let thrown = CoreCounter()
        let producerDone = AdvLatch()
        let producer = Thread {
            for n in 1...5 {
                if policy == .failDispatch && n == 5 {
                    do { try bus.tryDispatch(AdvTick(n: n)) } catch { thrown.increment() }
                } else {
                    bus.queue(AdvTick(n: n))
                }
            }
            producerDone.open()
        }
        producer.start()
        if policy == .block {
            // The producer fills the mailbox, then waits for room: let the receiver run.
            #expect(await coreEventually { receiver.pendingEventCount >= 1 })
        } else {
            await producerDone.wait()
        }
        receiver.gate.open()
        if policy == .block { await producerDone.wait() }
        await bus.drain()
        let handled = receiver.first.count + receiver.second.count + external.count
        receiver.cancel()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        let s = ledger.statistics
        #expect(s.delivered == handled, "\(s)")
        #expect(ledger.outcomes == 6 * 3, "\(s)")
        ledger.expectLettersMatchCounters()
        #expect(receiver.first.count == receiver.second.count)
        switch policy {
        case .block:
            #expect(s.dropped == 0, "\(s)")
            #expect(handled == 18)
        case .failDispatch:
            #expect(s.dropped > 0)
            #expect(thrown.count == 1)
            #expect(errors.values.contains { $0.code == .mailboxFull })
        default:
            #expect(s.dropped > 0, "\(s)")
            #expect(s.dropped.isMultiple(of: 3) || policy == .dropOldest, "\(s)")
        }
    }

    @Test("R3: a bounded capacity below zero is a documented precondition too, not a silent unbounded mailbox")
    func negativeCapacityStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            _ = AdvNoRoomNegative(bus: EventBus(label: "adv-negative-capacity"))
        }
    }
}
