// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization
import Testing

/// A mailbox node holds its listener until the delivery is settled: the drainer releases the
/// holds of a batch once the batch has run, and a delivery that leaves the mailbox without
/// running (discarded by a close, refused or dropped by a bounded mailbox) releases at once.
/// With two callbacks of one thread for the type, an unbounded mailbox takes one node for both,
/// which holds the route instead; its exits are the same.
/// Each way is taken here with a listener whose closure keeps a canary alive: the canary must be
/// freed once nothing else holds the listener (a hold never released would keep it), every
/// delivery must be counted, and a hold released twice would crash the test process.
@Suite("T4/R3/R5: a delivery's hold on its listener ends however the delivery leaves the mailbox")
struct MailboxHoldTests {
    struct Item: Eventable { let value: Int }
    struct Gate: Eventable {}

    /// Kept alive only by the closure of the listener under test.
    final class Canary: Sendable {}

    /// Blocks its thread on a `Gate` event until the gate opens, so that later events wait in the
    /// mailbox. The listener under test is then the thread's only callback for `Item`: each
    /// `Item` is a node of its own, holding that listener.
    class Receiver: EventThread, @unchecked Sendable {  // its state is the thread-safe `gate`
        let gate = CoreGate()
        override func registerEventListeners() {
            addEventCallback(Gate.self) { [unowned self] (_: Gate, _: EventMetadata) in gate.block() }
        }
    }

    final class Unbounded: Receiver, @unchecked Sendable {}  // inherits Receiver's thread-safe state
    final class DropNewest: Receiver, @unchecked Sendable {  // inherits Receiver's thread-safe state
        override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 3, whenFull: .dropNewest) }
    }
    final class DropOldest: Receiver, @unchecked Sendable {  // inherits Receiver's thread-safe state
        override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 3, whenFull: .dropOldest) }
    }

    /// How the deliveries of the listener under test leave the mailbox.
    enum Exit: String, CaseIterable, Sendable {
        case run, discardedByClose, refusedWhenFull, droppedAsOldest
    }

    @Test(
        "the listener is freed and every delivery counted",
        arguments: Exit.allCases.map { ($0, 1) } + [(Exit.run, 2), (Exit.discardedByClose, 2)])
    func holdEnds(exit: Exit, listeners: Int) async {
        weak var weakCanary: Canary?
        weak var weakBus: EventBus?
        let handled = Atomic<Int>(0)
        do {
            let bus = EventBus(label: "holds-\(exit.rawValue)")
            weakBus = bus
            let receiver: Receiver =
                switch exit {
                case .run, .discardedByClose: Unbounded(bus: bus)
                case .refusedWhenFull: DropNewest(bus: bus)
                case .droppedAsOldest: DropOldest(bus: bus)
                }
            let canary = Canary()
            weakCanary = canary
            for _ in 0..<listeners {
                receiver.addEventCallback(Item.self) { (_: Item, _: EventMetadata) in
                    withExtendedLifetime(canary) { _ = handled.add(1, ordering: .relaxed) }
                }
            }
            bus.queue(Gate())
            await receiver.gate.waitUntilEntered()
            for value in 1...10 { bus.queue(Item(value: value)) }

            if exit == .discardedByClose {
                // Closed while the thread is held at the gate: the ten deliveries waiting are discarded.
                let cancelled = DispatchSemaphore(value: 0)
                Thread {
                    receiver.cancel()
                    cancelled.signal()
                }.start()
                #expect(await coreEventually { bus.statistics.discarded == 10 * listeners })
                receiver.gate.open()
                await coreWait(cancelled)
            } else {
                receiver.gate.open()
                await bus.drain()
                receiver.cancel()
            }
            await bus.shutdown()

            let statistics = bus.statistics
            switch exit {
            case .run:
                #expect(handled.load(ordering: .relaxed) == 10 * listeners)
                #expect(statistics.delivered == 1 + 10 * listeners, "the gate and ten items per listener")
            case .discardedByClose:
                #expect(handled.load(ordering: .relaxed) == 0)
                #expect(statistics.discarded == 10 * listeners)
            case .refusedWhenFull:
                // Items 1 to 3 fit beside the gate's running delivery; 4 to 10 are refused.
                #expect(handled.load(ordering: .relaxed) == 3)
                #expect(statistics.dropped == 7)
            case .droppedAsOldest:
                // The newest three stay (8, 9, 10); 1 to 7 are dropped when the drainer takes them.
                #expect(handled.load(ordering: .relaxed) == 3)
                #expect(statistics.dropped == 7)
            }
        }
        #expect(await coreEventually { weakCanary == nil && weakBus == nil }, "nothing holds the listener")
    }
}
