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
    @exclusivity(unchecked) var lanes = _DrainerLanes()
    /// The holds on subscriptions of the deliveries run so far in this batch.
    @exclusivity(unchecked) var holds = _DrainerHolds()
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

/// The ten lanes of D3 as the drainer fills them: growable arrays of node indices kept in raw
/// memory, so that putting a node into its lane is a store and an increment (an `Array` of
/// arrays checked uniqueness and capacity on every append: a sixth of the drainer's work per
/// event in S1).
///
/// A noncopyable value kept in ``_DrainerBuffers``, which only the mailbox's single drainer
/// touches; the memory is this value's alone, allocated in `init`, grown by
/// ``append(_:to:)`` and freed in `deinit`.
struct _DrainerLanes: ~Copyable {
    private static var laneCount: Int { 10 }
    /// Each lane's first index (raw memory of `capacities[lane]` indices).
    let storage: UnsafeMutablePointer<UnsafeMutablePointer<UInt32>>
    let counts: UnsafeMutablePointer<Int>
    let capacities: UnsafeMutablePointer<Int>

    init() {
        // Owned by the drainer's lanes and freed in deinit; only the drainer touches them.
        storage = .allocate(capacity: Self.laneCount)
        counts = .allocate(capacity: Self.laneCount)
        capacities = .allocate(capacity: Self.laneCount)
        for lane in 0..<Self.laneCount {
            (storage + lane).initialize(to: .allocate(capacity: 16))
            (counts + lane).initialize(to: 0)
            (capacities + lane).initialize(to: 16)
        }
    }

    deinit {
        for lane in 0..<Self.laneCount { storage[lane].deallocate() }
        storage.deallocate()
        counts.deallocate()
        capacities.deallocate()
    }

    /// The nodes of `lane`, in the order appended; valid until the lane next changes.
    func nodes(_ lane: Int) -> UnsafeBufferPointer<UInt32> {
        UnsafeBufferPointer(start: storage[lane], count: counts[lane])
    }

    /// Empties `lane`, keeping its memory.
    @inline(__always)
    mutating func removeAll(_ lane: Int) { counts[lane] = 0 }

    @inline(never)
    mutating func grow(_ lane: Int) {
        let capacity = capacities[lane] * 2
        // Replaces the lane's buffer, freed just below; owned by the lanes from here on.
        let grown = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        grown.initialize(from: storage[lane], count: counts[lane])
        storage[lane].deallocate()
        storage[lane] = grown
        capacities[lane] = capacity
    }
}

/// The drainer's holds on the subscriptions of the deliveries it ran (``_MailboxItem/delivery``)
/// and on the routes of its multi-listener nodes (``_MailboxItem/deliveries``), released together
/// once the batch has run: a reference count then moves to the drainer's core once per batch,
/// not once per event.
///
/// A noncopyable value kept in ``_DrainerBuffers``, which only the mailbox's single drainer
/// touches; the memory is this value's alone.
struct _DrainerHolds: ~Copyable {
    var storage = UnsafeMutablePointer<Unmanaged<AnyObject>>.allocate(capacity: 64)
    var count = 0
    var capacity = 64

    /// Releases what a batch cut short and never resumed still held.
    deinit {
        for index in 0..<count { storage[index].release() }
        storage.deallocate()
    }

    /// Releases every hold kept since the last call (outside any lock: a subscription's `deinit`
    /// frees the user's handler).
    @inline(__always)
    mutating func releaseAll() {
        for index in 0..<count { storage[index].release() }
        count = 0
    }

    @inline(never)
    mutating func grow() {
        // Replaces the holds' buffer, freed just below; each hold in it is a retain this buffer owns.
        let grown = UnsafeMutablePointer<Unmanaged<AnyObject>>.allocate(capacity: capacity * 2)
        grown.initialize(from: storage, count: count)
        storage.deallocate()
        storage = grown
        capacity *= 2
    }
}

/// Counts the drain requests of one mailbox.
final class _DrainRequestCount: Sendable {
    private let count = Atomic<Int>(0)

    func increment() { count.wrappingAdd(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
