// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization

/// A job for a pool: carries the probe that records who handled it, so pooled threads need no
/// per-test configuration.
struct PoolJob: Eventable {
    let id: Int
    var key: Int = 0
    let probe: PoolProbe
}

/// Records which pool thread handled which job and, optionally, holds handlers at a gate.
final class PoolProbe: Sendable {
    struct Record: Sendable {
        let job: Int
        let key: Int
        let thread: ObjectIdentifier
    }

    private let records = LockedValue<[Record]>([])
    private let inside = Atomic<Int>(0)
    private let mostInside = Atomic<Int>(0)
    /// Signalled once per handler that reaches the gate.
    let entered = DispatchSemaphore(value: 0)
    /// Each blocked handler takes one signal; `nil` when handlers do not block.
    let gate: DispatchSemaphore?
    /// Per-job gates: the job with this id waits on its own semaphore.
    let jobGates: [Int: DispatchSemaphore]

    init(blocking: Bool = false, jobGates: [Int: DispatchSemaphore] = [:]) {
        gate = blocking ? DispatchSemaphore(value: 0) : nil
        self.jobGates = jobGates
    }

    /// Called by a pooled thread's callback.
    func handle(_ job: PoolJob, on thread: AnyObject) {
        let now = inside.add(1, ordering: .sequentiallyConsistent).newValue
        var most = mostInside.load(ordering: .relaxed)
        while now > most {
            let (exchanged, original) = mostInside.compareExchange(
                expected: most, desired: now, ordering: .sequentiallyConsistent)
            if exchanged { break }
            most = original
        }
        records.withLock { $0.append(Record(job: job.id, key: job.key, thread: ObjectIdentifier(thread))) }
        if let jobGate = jobGates[job.id] {
            entered.signal()
            jobGate.wait()
        } else if let gate {
            entered.signal()
            gate.wait()
        }
        inside.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// Lets `count` blocked handlers continue.
    func open(_ count: Int) {
        for _ in 0..<count { gate?.signal() }
    }

    var all: [Record] { records.withLock { $0 } }
    /// The most handlers that were inside at the same time.
    var concurrency: Int { mostInside.load(ordering: .sequentiallyConsistent) }

    /// How many jobs each thread handled, largest first.
    var perThread: [Int] {
        Dictionary(grouping: all, by: \.thread).values.map(\.count).sorted(by: >)
    }

    func thread(of job: Int) -> ObjectIdentifier? {
        all.first { $0.job == job }?.thread
    }
}

/// A pooled thread type that hands every ``PoolJob`` to its probe.
final class PoolWorker: EventThread, @unchecked Sendable {  // no state of its own beyond EventThread's
    override func registerEventListeners() {
        addEventCallback(PoolJob.self) { job, _ in job.probe.handle(job, on: self) }
    }
}

/// Waits for `count` signals of `semaphore` on a dispatch thread, so that async tests never
/// block the cooperative pool; a queue of its own, served by a thread of libdispatch's
/// overcommitting pool, not one of the global queue's few threads, which the cooperative pool
/// and the library's serial contexts share. Returns `false` if they did not come within `seconds`, a guard
/// against hanging, never a synchronization.
func poolWait(_ semaphore: DispatchSemaphore, count: Int = 1, seconds: Int = 10) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        DispatchQueue(label: "test-wait").async {
            let deadline = DispatchTime.now() + .seconds(seconds)
            for _ in 0..<count where semaphore.wait(timeout: deadline) == .timedOut {
                continuation.resume(returning: false)
                return
            }
            continuation.resume(returning: true)
        }
    }
}

/// Occupies the global concurrent queue: `blocks` work items queued on it that wait until
/// ``release()``, more than the threads it starts for them in the seconds a test lasts (it
/// starts one per processor at once, then about one a second while they are blocked). Every
/// task of the process waits meanwhile (Swift's tasks run on the same threads on Linux), so a
/// test releases it as soon as it has measured.
final class GlobalQueueSaturation: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let blocks: Int

    init(blocks: Int = 64) {
        self.blocks = blocks
        for _ in 0..<blocks { DispatchQueue.global().async { [gate] in gate.wait() } }
    }

    /// Lets every blocked work item finish.
    func release() {
        for _ in 0..<blocks { gate.signal() }
    }
}
