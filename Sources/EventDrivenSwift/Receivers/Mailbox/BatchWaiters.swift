// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Who waits for a mailbox's batch in progress to be counted, and whether one is in progress.
///
/// The drainer marks a batch from before its take until it has counted it, and a close marks
/// itself from before it takes what is pending until it has counted it; a waiter that finds
/// neither marked runs at once. Every side is sequentially consistent (each clears its mark,
/// then looks at the others'), so a waiter added meanwhile is always seen by the last one to
/// end, or sees them ended.
final class _BatchWaiters: Sendable {
    private let running = Atomic<Bool>(false)
    /// Closes counting what they discarded (``_Mailbox/close()``, which any thread may call).
    private let closing = Atomic<Int>(0)
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
        if hasWaiters.load(ordering: .sequentiallyConsistent), closing.load(ordering: .sequentiallyConsistent) == 0 {
            resumeAll()
        }
    }

    /// Called by a close before it takes what is pending.
    func closeStarts() {
        closing.add(1, ordering: .sequentiallyConsistent)
    }

    /// Called by a close once it has counted what it discarded.
    func closeEnds() {
        guard closing.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 else { return }
        if hasWaiters.load(ordering: .sequentiallyConsistent), !running.load(ordering: .sequentiallyConsistent) {
            resumeAll()
        }
    }

    /// Calls `body` once the batch in progress and the closes in progress, if any, have been
    /// counted.
    func add(_ body: @escaping @Sendable () -> Void) {
        waiters.withLock { $0.append(body) }
        hasWaiters.store(true, ordering: .sequentiallyConsistent)
        if !running.load(ordering: .sequentiallyConsistent), closing.load(ordering: .sequentiallyConsistent) == 0 {
            resumeAll()
        }
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
