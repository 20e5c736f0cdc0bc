// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// A `.dropOldest` mailbox keeps or drops an event's deliveries together, as a push takes them:
/// an event for several listeners on one receiver that finds room is taken whole (README,
/// *Overflow*). Before, the receiver applied its capacity to places when it took its pending
/// events, and dropped some of one event's, even of the only event pending.
@Suite("R3: .dropOldest and one event's several deliveries")
struct DropOldestEventTests {
    private struct Tick: Eventable { let n: Int }
    private struct Hold: Eventable {}

    /// Capacity 1, two callbacks of its own for `Tick`, and one for `Hold` that blocks.
    private final class Receiver: EventThread, @unchecked Sendable {  // state: the gate and counters
        override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 1, whenFull: .dropOldest) }
        let gate = CoreGate()
        let first = CoreRecorder<Int>()
        let second = CoreRecorder<Int>()
        override func registerEventListeners() {
            addEventCallback(Hold.self) { [unowned self] (_: Hold, _: EventMetadata) in gate.block() }
            addEventCallback(Tick.self) { [unowned self] (tick: Tick, _: EventMetadata) in
                first.append(tick.n)
            }
            addEventCallback(Tick.self) { [unowned self] (tick: Tick, _: EventMetadata) in
                second.append(tick.n)
            }
        }
    }

    @Test("one event for three listeners of an idle receiver of capacity 1 reaches all three")
    func idleReceiverTakesTheWholeEvent() async {
        let bus = EventBus(label: "dropOldest.idle")
        let letters = bus.deadLetters()
        let receiver = Receiver(bus: bus)
        let third = CoreRecorder<Int>()
        bus.listen(Tick.self, executeOn: .thread(receiver)) { tick, _ in third.append(tick.n) }
        bus.queue(Tick(n: 1))
        await bus.drain()
        #expect([receiver.first.values, receiver.second.values, third.values] == [[1], [1], [1]])
        _ = receiver.cancel()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.dropped == 0, "\(ledger.statistics)")
        #expect(ledger.outcomes == 3)
        ledger.expectLettersMatchCounters()
    }

    @Test("a full receiver keeps the newest event whole and drops the older one whole")
    func fullReceiverDropsWholeEvents() async {
        let bus = EventBus(label: "dropOldest.full")
        let letters = bus.deadLetters()
        let receiver = Receiver(bus: bus)
        let third = CoreRecorder<Int>()
        bus.listen(Tick.self, executeOn: .thread(receiver)) { tick, _ in third.append(tick.n) }
        bus.queue(Hold())
        await receiver.gate.waitUntilEntered()
        bus.queue(Tick(n: 1))
        bus.queue(Tick(n: 2))
        receiver.gate.open()
        await bus.drain()
        // Of 1 and 2, pending together, 2 is kept whole and 1 dropped whole.
        #expect([receiver.first.values, receiver.second.values, third.values] == [[2], [2], [2]])
        _ = receiver.cancel()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.dropped == 3, "\(ledger.statistics)")
        #expect(ledger.outcomes == 7)
        ledger.expectLettersMatchCounters()
    }
}
