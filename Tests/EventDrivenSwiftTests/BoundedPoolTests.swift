// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import EventDrivenSwift

private struct Job: Eventable {
    let id: Int
    /// Follow-ups its handler dispatches to the pool.
    let followUps: Int
}

/// A pool thread with a small mailbox that makes producers wait; its handlers dispatch follow-ups
/// to the same pool, and a job with id -1 holds the thread until ``gate`` opens.
private final class ChainWorker: EventThread, @unchecked Sendable {  // every stored property is Sendable
    static let handled = Atomic<Int>(0)
    /// Signalled once per handled job.
    static let each = DispatchSemaphore(value: 0)
    static let gate = DispatchSemaphore(value: 0)
    static let holding = LockedValue<ChainWorker?>(nil)
    override class var mailboxPolicy: EventMailboxPolicy {
        .bounded(capacity: 2, whenFull: .blockProducer(timeout: nil))
    }

    override func registerEventListeners() {
        addEventCallback(Job.self) { [unowned self] job, _ in
            if job.id == -1 {
                ChainWorker.holding.withLock { $0 = self }
                ChainWorker.gate.wait()
            }
            for _ in 0..<job.followUps { Job(id: job.id + 1, followUps: 0).queue(on: self.bus) }
            ChainWorker.handled.add(1, ordering: .relaxed)
            ChainWorker.each.signal()
        }
    }
}

/// Bounded `.blockProducer` mailboxes in a pool (found by outside adversarial tests).
@Suite("D5/R5: a pool of bounded threads that make producers wait", .serialized)
struct BoundedPoolTests {
    @Test("D5: handlers that dispatch to their own pool never wait for its other threads (no deadlock)")
    func handlersFeedingTheirOwnPool() async {
        ChainWorker.handled.store(0, ordering: .relaxed)
        while ChainWorker.each.wait(timeout: .now()) == .success {}
        let bus = EventBus(label: "pool-feeds-itself")
        let pool = EventPool<ChainWorker>(capacity: 2, bus: bus)
        let jobs = 1_000
        // Each job dispatches two follow-ups from a pool thread: before the fix, two threads each
        // waiting for room in the other's full mailbox stopped the pool after a few dozen.
        let produced = DispatchSemaphore(value: 0)
        Thread {
            for id in 0..<jobs { Job(id: id * 10, followUps: 2).queue(on: bus) }
            produced.signal()
        }.start()
        // A guard against hanging, not a timing: before the fix, a few dozen jobs ran in 30 s.
        let allHandled = await poolWait(ChainWorker.each, count: 3 * jobs, seconds: 30)
        #expect(allHandled)
        #expect(await poolWait(produced, seconds: 30))
        #expect(ChainWorker.handled.load(ordering: .relaxed) == 3 * jobs)
        await bus.shutdown(immediately: !allHandled)
        _ = pool
    }

    @Test("R5: shutdown(immediately: true) releases a producer waiting for room in a pool thread's mailbox")
    func immediateShutdownReleasesBlockedProducer() async {
        ChainWorker.handled.store(0, ordering: .relaxed)
        while ChainWorker.each.wait(timeout: .now()) == .success {}
        let bus = EventBus(label: "pool-blocked-producer")
        let pool = EventPool<ChainWorker>(capacity: 1, bus: bus)
        Job(id: -1, followUps: 0).queue(on: bus)
        let held = await coreEventually { ChainWorker.holding.withLock { $0 } != nil }
        #expect(held)
        let worker = ChainWorker.holding.withLock { $0 }!
        Job(id: 1, followUps: 0).queue(on: bus)
        Job(id: 2, followUps: 0).queue(on: bus)  // the thread's mailbox is full
        let producerDone = DispatchSemaphore(value: 0)
        Thread {
            Job(id: 3, followUps: 0).queue(on: bus)
            producerDone.signal()
        }.start()
        #expect(await coreEventually { worker.mailbox.blockedProducersForTesting == 1 })
        let shutdown = Task { await bus.shutdown(immediately: true) }
        // Released while the handler still holds the thread (a guard against hanging, not a timing).
        let released = await poolWait(producerDone, seconds: 10)
        ChainWorker.gate.signal()
        await shutdown.value
        #expect(released)
        if !released { _ = await poolWait(producerDone, seconds: 30) }
        let statistics = bus.statistics
        #expect(statistics.delivered + statistics.discarded + statistics.dropped == 4, "\(statistics)")
        ChainWorker.holding.withLock { $0 = nil }
        _ = pool
    }
}
