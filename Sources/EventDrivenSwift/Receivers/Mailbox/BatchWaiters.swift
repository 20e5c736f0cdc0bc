// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Who waits for a mailbox's batch in progress to be counted, and whether one is in progress.
///
/// The drainer marks a batch from before its take until it has counted it; a waiter that finds
/// no batch marked runs at once. Both sides are sequentially consistent, so a waiter added while
/// a batch runs is always seen by the drainer when the batch ends, or sees the batch ended.
final class _BatchWaiters: Sendable {
    private let running = Atomic<Bool>(false)
    private let hasWaiters = Atomic<Bool>(false)
    private let waiters = LockedValue<[@Sendable () -> Void]>([])

    /// Called by the drainer before it takes a batch.
    @inline(__always)
    func batchStarts() {
        running.store(true, ordering: .sequentiallyConsistent)
    }

    /// Called by the drainer once the batch is counted, or when the take found none.
    @inline(__always)
    func batchEnds() {
        running.store(false, ordering: .sequentiallyConsistent)
        if hasWaiters.load(ordering: .sequentiallyConsistent) { resumeAll() }
    }

    /// Calls `body` once the batch in progress, if any, has been counted.
    func add(_ body: @escaping @Sendable () -> Void) {
        waiters.withLock { $0.append(body) }
        hasWaiters.store(true, ordering: .sequentiallyConsistent)
        if !running.load(ordering: .sequentiallyConsistent) { resumeAll() }
    }

    private func resumeAll() {
        let resumed = waiters.withLock { waiters in
            hasWaiters.store(false, ordering: .sequentiallyConsistent)
            defer { waiters = [] }
            return waiters
        }
        for body in resumed { body() }
    }
}
