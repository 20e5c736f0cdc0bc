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
}
