// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

/// Regression tests of issue 12 §3 items 1, 4 and 5.
@Suite("A3/T3/C3: defects found from outside (issue 12 §3)")
struct Issue12DefectTests {
    private struct Job: Eventable { let blocks: Bool }

    /// Waits for `semaphore` on a dispatch thread for up to ten seconds: a failure detector for
    /// what must happen at once, never a synchronization.
    private static func signalled(_ semaphore: DispatchSemaphore) async -> Bool {
        await poolWait(semaphore)
    }

    @Test("A3 (issue 12 §3.4): drain() waits for .taskThread deliveries dispatched before it, not after")
    func drainIgnoresLaterTasks() async {
        let bus = EventBus(label: #function)
        let first = DispatchSemaphore(value: 0)
        let later = DispatchSemaphore(value: 0)
        let drained = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let finished = CoreCounter()
        bus.listen(Job.self, executeOn: .taskThread) { job, _ in
            if !job.blocks { started.signal() }
            _ = (job.blocks ? later : first).wait(timeout: .now() + 10)
            finished.increment()
        }
        bus.queue(Job(blocks: false))
        // Running, so that the blocked task below cannot keep it from a thread of the pool.
        await coreWait(started)
        bus.whenDrained {
            #expect(finished.count == 1, "the delivery dispatched before the call has run, the later one has not")
            drained.signal()
        }
        // Started after the call, and running until the drain returns: the drain must not wait for it.
        bus.queue(Job(blocks: true))
        first.signal()
        let returned = await Self.signalled(drained)
        later.signal()
        #expect(returned, "drain() waited for a task started after it was called")
        await bus.shutdown()
    }

    private final class Racer: EventThread, @unchecked Sendable {}  // no state of its own

    @Test("T3/T4 (issue 12 §3.5): addEventCallback racing cancel() never leaves a registration alive")
    func addEventCallbackRacingCancel() async {
        let bus = EventBus(label: #function)
        let survivors = CoreCounter()
        for _ in 0..<300 {
            let racer = Racer(bus: bus)
            await coreOnThreads(2) { index in
                if index == 0 {
                    for _ in 0..<20 { racer.addEventCallback(Job.self) { _, _ in } }
                } else {
                    racer.cancel()
                }
            }
            if bus.subscriberCount(for: Job.self) > 0 { survivors.increment() }
            racer.cancel()
        }
        #expect(survivors.count == 0, "registrations left alive after cancel()")
        await bus.shutdown()
    }
}
