// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import HeapModule

/// The scheduled jobs of a ``_EventScheduler``: a pure state machine, changed only under the
/// scheduler's lock. Transitions return what the caller must do once the lock is released
/// (start or wake the thread, run or release jobs); nothing here touches a thread or a lock.
///
/// Jobs live in a table by id, the heap holds only their due times and ids. Cancelling removes
/// the job from the table at once and hands it back, so that its payload is freed by the caller
/// outside the lock; the heap key it leaves behind is skipped when it comes up, and the heap is
/// rebuilt when such keys outnumber the live ones.
struct _SchedulerState<Job> {
    /// A job's place in the heap: earliest due first, then in the order scheduled.
    struct Key: Comparable {
        let due: UInt64
        let id: UInt64

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.due, lhs.id) < (rhs.due, rhs.id) }
    }

    /// What the scheduler thread must do after a job was added.
    enum ScheduleAction: Equatable {
        /// The first job ever: start the thread.
        case startThread
        /// The new job is due before the one the thread waits for: wake it.
        case wakeThread
        /// The thread already waits for an earlier job.
        case none
    }

    private var heap = Heap<Key>()
    private var jobs: [UInt64: Job] = [:]
    /// Heap keys whose job was cancelled.
    private var staleKeys = 0
    private var isThreadStarted = false
    /// Below this many stale keys the heap is never rebuilt.
    private let compactionThreshold: Int

    init(compactionThreshold: Int = 64) {
        self.compactionThreshold = compactionThreshold
    }

    /// Jobs waiting for their time; cancelled ones are gone.
    var pendingCount: Int { jobs.count }

    /// Keys in the heap, live and stale: what the scheduler's memory grows with.
    var storedKeyCount: Int { heap.count }

    /// Adds `job`, due at `due` (uptime nanoseconds); `id` is unique and grows with each call.
    mutating func schedule(_ job: Job, id: UInt64, due: UInt64) -> ScheduleAction {
        let key = Key(due: due, id: id)
        jobs[id] = job
        heap.insert(key)
        if !isThreadStarted {
            isThreadStarted = true
            return .startThread
        }
        return heap.min == key ? .wakeThread : .none
    }

    /// Removes the job `id` and returns it, for the caller to release outside the lock; `nil`
    /// when it already fired or was cancelled.
    mutating func cancel(_ id: UInt64) -> Job? {
        guard let job = jobs.removeValue(forKey: id) else { return nil }
        staleKeys += 1
        if staleKeys >= compactionThreshold && staleKeys > jobs.count {
            heap = Heap(heap.unordered.filter { jobs[$0.id] != nil })
            staleKeys = 0
        }
        return job
    }

    /// Removes and returns the jobs due at `now`, in due order, and when the next one is due.
    mutating func takeDue(now: UInt64) -> (due: [Job], next: UInt64?) {
        var due: [Job] = []
        while let first = heap.min, first.due <= now {
            heap.removeMin()
            if let job = jobs.removeValue(forKey: first.id) {
                due.append(job)
            } else {
                staleKeys -= 1
            }
        }
        // A cancelled job is not worth waking up for.
        while let first = heap.min, jobs[first.id] == nil {
            heap.removeMin()
            staleKeys -= 1
        }
        return (due, heap.min?.due)
    }
}

extension _SchedulerState: Sendable where Job: Sendable {}
extension _SchedulerState.Key: Sendable {}
