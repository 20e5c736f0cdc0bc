// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import EventDrivenSwift

/// Closing a mailbox: nothing of the user's runs under its lock, and it never gets two drainers
/// (issue 13.8, 13.9).
@Suite("T4/R5: closing a mailbox (issue 13)")
struct MailboxCloseTests {
    private struct Hold: Eventable {}
    private struct Echo: Eventable {}
    private struct Payload: Eventable { let reentrant: Reentrant }

    /// Dispatches an `Echo` from its `deinit`, after saying so.
    private final class Reentrant: Sendable {
        let bus: EventBus
        let freed: DispatchSemaphore
        init(bus: EventBus, freed: DispatchSemaphore) {
            self.bus = bus
            self.freed = freed
        }
        deinit {
            freed.signal()
            bus.queue(Echo())
        }
    }

    private final class Receiver: EventThread, @unchecked Sendable {  // `gate` is Sendable and immutable
        let gate = CoreGate()
        override func registerEventListeners() {
            let gate = gate
            let bus = bus
            addEventCallback(Hold.self) { _, _ in
                // A listener registered from a callback delivers on this thread, and outlives its cancel.
                bus.listen(Echo.self) { _, _ in }
                gate.block()
            }
            addEventCallback(Payload.self) { _, _ in }
        }
    }

    @Test("T4 (issue 13.8): a payload whose deinit dispatches, freed while cancel() discards it, does not deadlock")
    func payloadDeinitDuringCancel() async {
        let bus = EventBus(label: #function)
        let receiver = Receiver(bus: bus)
        Hold().queue(on: bus)
        await receiver.gate.waitUntilEntered()
        let freed = DispatchSemaphore(value: 0)
        bus.queue(Payload(reentrant: Reentrant(bus: bus, freed: freed)))
        let cancelled = DispatchSemaphore(value: 0)
        Thread {
            receiver.cancel()
            cancelled.signal()
        }.start()
        await coreWait(freed)
        receiver.gate.open()
        // A failure detector, not a synchronization: the cancel returns at once when it works.
        let finished = await poolWait(cancelled)
        #expect(finished, "cancel() deadlocked in the payload's deinit")
        guard finished else { return }
        await bus.shutdown()
        let stats = bus.statistics
        #expect(stats.discarded == 2, "the payload and its echo, discarded by the cancel")
    }

    @Test("T4 (issue 13.9): closing a mailbox whose drain is inside a batch starts no second drain")
    func closeStartsNoSecondDrain() async {
        let bus = EventBus(label: #function)
        let queue = DispatchQueue(label: "issue-13.9")
        let mailbox = _Mailbox(executor: .queue(.named(queue)), counters: bus.counters)
        let gate = CoreGate()
        let subscription = _Subscription(
            Hold.self, owner: nil, target: mailbox, interest: .all, registrar: bus
        ) { (_: Hold, _: EventMetadata) in gate.block() }
        let metadata = EventMetadata(priority: .normal, method: .queue, dispatchTime: .now(), scheduledTime: nil)
        mailbox.deliver(_EventEnvelope(event: Hold(), metadata: metadata), for: subscription)
        await gate.waitUntilEntered()
        mailbox.deliver(_EventEnvelope(event: Hold(), metadata: metadata), for: subscription)
        let requests = mailbox.drainRequests.value
        mailbox.close()
        #expect(mailbox.drainRequests.value == requests, "the drain in progress finishes the mailbox itself")
        gate.open()
        queue.sync {}
        #expect(bus.statistics.delivered == 1)
        #expect(bus.statistics.discarded == 1)
        withExtendedLifetime(subscription) {}
    }
}
