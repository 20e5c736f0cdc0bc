/// The state of one mailbox, changed only under the mailbox's lock.
///
/// A pure state machine: every transition returns what the caller must do once the lock is
/// released (wake the drainer, run barriers), so that the lock is never held across user code.
struct _MailboxState: ~Copyable {
    enum Lifecycle {
        /// Accepts events.
        case open
        /// Accepts nothing new, delivers what is pending, then finishes.
        case draining
        /// Accepts and delivers nothing.
        case closed
    }

    var pending = _MailboxLanes<_MailboxEntry>()
    /// The deliveries `pending` stands for: an entry for a group counts each of its subscriptions.
    var pendingDeliveries = 0
    /// Keeps the subscriptions of the pending entries alive (entries hold theirs unretained).
    var holds = _SubscriptionHolds()
    /// Callbacks that run once every entry enqueued before them has been handled.
    var barriers: [@Sendable () -> Void] = []
    /// `true` while a drain is requested or running; a producer wakes the drainer only when
    /// it finds this `false`.
    var isScheduled = false
    var lifecycle = Lifecycle.open
    /// Deliveries taken by the drainer and not yet handled, for load-aware balancing.
    var inProgress = 0
    /// The most entries that may wait; `Int.max` (unbounded) unless a bounded policy was chosen.
    var capacity = Int.max
    /// Whether a full mailbox makes producers wait (``EventOverflowPolicy/blockProducer(timeout:)``).
    var blocksWhenFull = false
    /// Producers waiting for space, and how many of them the drainer must wake after a take.
    var blockedProducers = 0
    var producersToWake = 0
    /// `true` from a take of a batch until the drainer has counted it.
    var isRunningBatch = false
    /// Called once the batch in progress has been counted (see ``_Mailbox/whenBatchCounted(_:)``).
    var batchWaiters: [@Sendable () -> Void] = []

    enum EnqueueAction: Equatable {
        case none
        case wake
        case rejected
        /// A bounded mailbox is full; its overflow policy decides (Reliability/Mailbox+Overflow.swift).
        case full
    }

    mutating func enqueue(_ entry: _MailboxEntry) -> EnqueueAction {
        if let refusal = refusal() { return refusal }
        return append(entry)
    }

    /// Why an entry cannot be appended now (`.rejected`, `.full`), or `nil` when it can. A
    /// producer that will wait for space is counted here.
    @inline(__always)
    mutating func refusal() -> EnqueueAction? {
        guard lifecycle == .open else { return .rejected }
        if pending.count >= capacity {
            if blocksWhenFull { blockedProducers += 1 }
            return .full
        }
        return nil
    }

    /// Appends `entry` whatever the capacity.
    mutating func append(_ entry: consuming _MailboxEntry) -> EnqueueAction {
        let method = entry.envelope.metadata.method
        let priority = entry.envelope.metadata.priority
        holds.hold(recipientOf: entry)
        pendingDeliveries += entry.recipient.deliveryCount
        pending.append(entry, method: method, priority: priority)
        return scheduleIfIdle()
    }

    enum BarrierAction {
        /// Nothing is pending or running: run the barrier now.
        case runNow
        case none
        case wake
    }

    mutating func addBarrier(_ barrier: @escaping @Sendable () -> Void) -> BarrierAction {
        // A closed or finished mailbox never runs another batch: nothing is left to wait for.
        if lifecycle == .closed || (!isScheduled && pending.isEmpty && barriers.isEmpty) { return .runNow }
        barriers.append(barrier)
        return scheduleIfIdle() == .wake ? .wake : .none
    }

    private mutating func scheduleIfIdle() -> EnqueueAction {
        if isScheduled { return .none }
        isScheduled = true
        return .wake
    }

    enum TakeResult {
        /// A batch was moved into the drainer's buffers.
        case batch
        /// Nothing pending; the mailbox is still scheduled (the drainer may look again).
        case empty
        /// Nothing pending; the mailbox is now idle and the next enqueue wakes it.
        case idle
        /// The mailbox is finished; the drainer stops.
        case finished
    }

    /// Moves everything pending into `batch`, `batchHolds` and `batchBarriers` (which must be
    /// empty). The drainer keeps `batchHolds` until it has handled the batch.
    mutating func take(
        into batch: inout _MailboxLanes<_MailboxEntry>,
        holds batchHolds: inout _SubscriptionHolds,
        barriers batchBarriers: inout [@Sendable () -> Void],
        mayIdle: Bool
    ) -> TakeResult {
        inProgress = 0
        if lifecycle == .closed { return .finished }
        if pending.isEmpty && barriers.isEmpty {
            if lifecycle == .draining {
                lifecycle = .closed
                return .finished
            }
            guard mayIdle else { return .empty }
            isScheduled = false
            return .idle
        }
        swap(&pending, &batch)
        swap(&holds, &batchHolds)
        swap(&barriers, &batchBarriers)
        inProgress = pendingDeliveries
        pendingDeliveries = 0
        isRunningBatch = true
        if blockedProducers > 0 {
            producersToWake = blockedProducers
            blockedProducers = 0
        }
        return .batch
    }

    /// Closes the mailbox; returns the deliveries dropped, the barriers to run, and whether the
    /// drainer must be woken to finish (it is idle; a drain in progress finishes by itself, so a
    /// second one is never started). The pending entries and their holds move into `dropped`
    /// and `droppedHolds`, for the caller to release once the lock is released: an event's or a
    /// subscription's `deinit` is user code.
    mutating func close(
        droppingInto dropped: inout _MailboxLanes<_MailboxEntry>, holds droppedHolds: inout _SubscriptionHolds
    ) -> (discarded: Int, barriers: [@Sendable () -> Void], wake: Bool) {
        lifecycle = .closed
        let discarded = pendingDeliveries
        pendingDeliveries = 0
        swap(&pending, &dropped)
        swap(&holds, &droppedHolds)
        let released = barriers
        barriers = []
        return (discarded, released, scheduleIfIdle() == .wake)
    }

    /// The batch has been counted: returns whoever waited for that.
    mutating func finishBatch() -> [@Sendable () -> Void] {
        inProgress = 0
        isRunningBatch = false
        defer { batchWaiters = [] }
        return batchWaiters
    }

    /// Stops accepting new entries; pending ones are still delivered.
    mutating func closeAfterDraining() -> EnqueueAction {
        if lifecycle == .open { lifecycle = .draining }
        return scheduleIfIdle()
    }
}
