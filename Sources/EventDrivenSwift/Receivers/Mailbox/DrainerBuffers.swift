// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// The drainer's working buffers, reused batch after batch so that steady-state draining
/// allocates nothing.
///
/// Exclusivity is not checked at run time: only the drainer touches these, one batch at a time,
/// and a check on every access was a sixth of the cost of a delivery.
// @unchecked Sendable: only the mailbox's single drainer touches it (one drain at a time)
final class _DrainerBuffers: @unchecked Sendable {
    /// The nodes of the batch in the ten lanes of D3, in the order the stack gave them (newest first).
    @exclusivity(unchecked) var lanes: [[UInt32]] = Array(repeating: [], count: 10)
    @exclusivity(unchecked) var barriers: [@Sendable () -> Void] = []
    @exclusivity(unchecked) var droppedOldest = 0
    @exclusivity(unchecked) var lastDiscarded = 0
    @exclusivity(unchecked) var batchCount = 0
    /// Deliveries of the batch not yet started.
    @exclusivity(unchecked) var remaining = 0
    /// The top and bottom nodes of the batch taken, given back once it has run.
    @exclusivity(unchecked) var top: UInt32 = 0
    @exclusivity(unchecked) var bottom: UInt32 = 0
    /// Where the batch in progress goes on: a lane, and a position in that lane's running order.
    @exclusivity(unchecked) var resumeLane = 0
    @exclusivity(unchecked) var resumePosition = 0
    /// `true` while a deadline has cut the batch short (see ``_Mailbox/runBatch(mayIdle:deadline:)``).
    @exclusivity(unchecked) var isCutShort = false
}

/// Counts the drain requests of one mailbox.
final class _DrainRequestCount: Sendable {
    private let count = Atomic<Int>(0)

    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
