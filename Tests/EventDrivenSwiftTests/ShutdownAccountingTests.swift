// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import EventDrivenSwift

/// `shutdown` returns only when its counts are final and its dead letters posted (issue 13.4).
@Suite("R1/R4/R5: shutdown's accounting (issue 13.4)")
struct ShutdownAccountingTests {
    private struct Work: Eventable { let value: Int }
    private struct Churn: Eventable {}

    @Test("R5 (issue 13.4): an immediate shutdown counts and posts the rest of the batch in progress before it returns")
    func immediateShutdownMidBatch() async {
        let bus = EventBus(label: #function)
        let stream = bus.deadLetters()
        let gate = CoreGate()
        bus.listen(Work.self, executeOn: .listenerThread) { work, _ in
            if work.value == 0 { gate.block() }
        }
        bus.queue(Work(value: 0))
        await gate.waitUntilEntered()
        for value in 1..<1_000 { bus.queue(Work(value: value)) }
        // The drainer takes the 999 waiting events as its next batch only after event 0's; hold it
        // there by letting event 0 go once the shutdown has closed the mailbox.
        let mailbox = bus.listenerMailbox
        let shutdown = Task { await AccountingLedger.close(bus, immediately: true, letters: stream) }
        let closed = await coreEventually { mailbox.lifecycleForTesting == .closed }
        #expect(closed)
        gate.open()
        let ledger = await shutdown.value
        #expect(ledger.statistics.delivered == 1)
        #expect(ledger.statistics.discarded == 999, "counted before shutdown returned")
        ledger.expectLettersMatchCounters()
    }

    /// A thread that receives `Work`.
    private final class Worker: EventThread, @unchecked Sendable {  // no state of its own
        override func registerEventListeners() {
            addEventCallback(Work.self) { _, _ in }
        }
    }

    @Test(
        "R1/R5 (issue 13.4): producers racing an immediate or graceful shutdown, with subscribers coming and going: every pair counted once, every letter posted",
        arguments: [true, false])
    func producersRacingShutdown(immediately: Bool) async {
        let bus = EventBus(label: #function)
        let stream = bus.deadLetters()
        let rejected = CoreRecorder<String>()
        bus.setErrorHandler { error in
            if error.code == .busShutDown, let type = error.eventType { rejected.append(type) }
        }
        let worker = Worker(bus: bus)
        bus.listen(Work.self, executeOn: .listenerThread) { _, _ in }
        bus.listen(Work.self, executeOn: .taskThread) { _, _ in }
        bus.listen(Work.self, executeOn: .synchronous) { _, _ in }
        bus.listenAsync(Work.self) { (_: Work) async in }
        let receiversOfWork = 5
        let perProducer = coreUnderThreadSanitizer ? 500 : 5_000
        let started = DispatchSemaphore(value: 0)
        let producers = Task {
            await coreOnThreads(5) { producer in
                if producer == 4 {
                    // Churn: at most one subscriber of `Churn` at a time.
                    started.signal()
                    while !bus.isShutDown {
                        let handle = bus.listen(Churn.self, executeOn: .listenerThread) { _, _ in }
                        handle.cancel()
                    }
                    return
                }
                for value in 0..<perProducer {
                    bus.queue(Work(value: value))
                    bus.queue(Churn())
                }
            }
        }
        await coreWait(started)
        let ledger = await AccountingLedger.close(bus, immediately: immediately, letters: stream)
        await producers.value
        worker.cancel()
        var settled = bus.statistics
        #expect(settled.rejected == rejected.count)
        settled.rejected = ledger.statistics.rejected  // producers went on dispatching after the shutdown
        #expect(settled == ledger.statistics, "the counts were final when shutdown returned")
        let rejectedWork = rejected.values.filter { $0 == String(reflecting: Work.self) }.count
        let acceptedWork = 4 * perProducer - rejectedWork
        let acceptedChurn = 4 * perProducer - (rejected.count - rejectedWork)
        // A dispatch racing the shutdown may find some of the subscribers already removed: each
        // event has between one outcome (nobody left) and one per subscriber.
        #expect(ledger.outcomes <= receiversOfWork * acceptedWork + acceptedChurn)
        #expect(ledger.outcomes >= acceptedWork + acceptedChurn)
        ledger.expectLettersMatchCounters()
    }

    @Test("R5 (issue 13.4): a second, concurrent shutdown also returns only once the counts are final")
    func secondShutdownWaits() async {
        let bus = EventBus(label: #function)
        let gate = CoreGate()
        bus.listen(Work.self, executeOn: .listenerThread) { work, _ in
            if work.value == 0 { gate.block() }
        }
        bus.queue(Work(value: 0))
        await gate.waitUntilEntered()
        for value in 1..<10 { bus.queue(Work(value: value)) }
        async let first: Void = bus.shutdown(immediately: true)
        #expect(await coreEventually { bus.statistics.discarded == 9 })
        let second = Task {
            await bus.shutdown()
            return bus.statistics.delivered
        }
        // Let the second call reach its wait before the running handler returns.
        for _ in 0..<1_000 { await Task.yield() }
        gate.open()
        await first
        #expect(await second.value == 1, "the second shutdown returned before the handler's outcome was counted")
    }
}
