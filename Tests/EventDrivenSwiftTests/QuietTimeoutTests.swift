// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization
import Testing

private struct Stuck: Eventable {}

/// Runs a task's jobs on a serial queue of its own, which libdispatch serves from its
/// overcommitting pool: the task runs while the global queue (where the cooperative pool runs
/// tasks on Linux) is saturated.
private final class OwnQueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "quiet-timeout-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

@Suite("waitUntilQuiet's timeout (SPEC A3)")
struct QuietTimeoutTests {
    @Test("the timeout ends the wait while the global concurrent queue is saturated")
    func timeoutWithSaturatedGlobalQueue() {
        let bus = EventBus(label: "quiet.saturated")
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        bus.listen(Stuck.self, executeOn: .listenerThread) { _, _ in
            entered.signal()
            release.wait()
        }
        bus.queue(Stuck())
        #expect(entered.wait(timeout: .now() + .seconds(30)) == .success)
        let saturation = GlobalQueueSaturation()
        let ended = DispatchSemaphore(value: 0)
        let outcome = Mutex<EventBusNotQuietError?>(nil)
        Task(executorPreference: OwnQueueExecutor()) {
            do throws(EventBusNotQuietError) {
                try await bus.waitUntilQuiet(timeout: .milliseconds(50))
            } catch {
                outcome.withLock { $0 = error }
            }
            ended.signal()
        }
        // Synchronous, like the task: an async test's own continuation would wait for the queue.
        let endedInTime = ended.wait(timeout: .now() + .seconds(5)) == .success
        saturation.release()
        release.signal()
        #expect(endedInTime)
        #expect(outcome.withLock { $0 } != nil)
        if !endedInTime { _ = ended.wait(timeout: .now() + .seconds(30)) }
    }

    @Test(
        "a zero or negative timeout on a quiet bus does not report it busy, fresh or after its receivers went idle",
        arguments: [Duration.zero, .seconds(-3)])
    func zeroTimeoutOnQuietBus(timeout: Duration) async {
        var thrown: [Int] = []
        for round in 0..<100 {
            let bus = EventBus(label: "quiet.zero.\(round)")
            if round.isMultiple(of: 2) {
                bus.listen(Stuck.self, executeOn: .listenerThread) { _, _ in }
                bus.queue(Stuck())
                await bus.drain()
            }
            do { try await bus.waitUntilQuiet(timeout: timeout) } catch { thrown.append(error.pendingDeliveries) }
            await bus.shutdown()
        }
        #expect(thrown.isEmpty, "reported busy \(thrown.count) times of 100, pending \(thrown)")
    }
}
