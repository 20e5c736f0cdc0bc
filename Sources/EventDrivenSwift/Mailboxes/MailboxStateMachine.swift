/// The state of one mailbox: what is pending, its bound and overflow policy, its barriers, the
/// batch in progress and whether it still accepts events.
///
/// A pure state machine in the shape of swift-async-algorithms' channels: every transition is a
/// `mutating func` that returns what the caller must do (an action), and none touches a lock, a
/// thread, a clock or a continuation. ``_Mailbox`` runs it under its lock and performs the
/// actions once the lock is released, so that the lock is never held across user code: a
/// handler, a barrier, or the `deinit` of an event or subscription that the mailbox lets go.
///
/// Entries and their holds leave the machine in the actions or in a ``_MailboxBatch`` the caller
/// hands in: the drainer swaps its empty buffers for the pending ones, so that steady-state
/// draining allocates nothing. The machine cannot be copied, because its lanes own their memory:
/// it lives in the mailbox's lock and is only ever mutated in place.
struct _MailboxStateMachine: ~Copyable, Sendable {
    /// Whether a mailbox accepts and delivers events.
    enum Lifecycle: Sendable, Equatable {
        /// Accepts events.
        case open
        /// Accepts nothing new, delivers what is pending, then finishes.
        case draining
        /// Accepts and delivers nothing.
        case closed
    }

    /// The entries waiting for the next batch, in the ten lanes of D3.
    private var pending = _MailboxLanes<_MailboxEntry>()
    /// Keeps the subscriptions of the pending entries alive (entries hold theirs unretained).
    private var holds = _SubscriptionHolds()
    /// Callbacks that run once every entry enqueued before them has been handled.
    private var barriers: [@Sendable () -> Void] = []
    /// The deliveries `pending` stands for: an entry for a group counts each of its subscriptions.
    private var deliveriesPending = 0
    /// Deliveries taken by the drainer and not yet counted, for load-aware balancing.
    private var deliveriesInProgress = 0
    /// `true` while a drain is requested or running; a producer wakes the drainer only when it
    /// finds this `false`. While open, pending entries imply `true`.
    private var scheduled = false
    /// Whether the mailbox accepts events (see ``lifecycle``).
    private var phase = Lifecycle.open
    /// `true` from the take of a batch until the drainer has counted it.
    private var batchRunning = false
    /// Called once the batch in progress has been counted (see ``whenBatchCounted(_:)``).
    private var batchWaiters: [@Sendable () -> Void] = []
    /// The most entries that may wait; `Int.max` for the default unbounded mailbox.
    private let capacity: Int
    /// What a full mailbox does with one more entry; unused while unbounded.
    private let whenFull: EventOverflowPolicy
    /// Producers that found the mailbox full and wait for the next take.
    private var producersBlocked = 0

    /// An unbounded mailbox.
    init() {
        capacity = .max
        whenFull = .dropNewest
    }

    /// A mailbox of at most `capacity` waiting entries (not counting the batch in progress);
    /// `whenFull` decides what happens to one more.
    init(capacity: Int, whenFull: EventOverflowPolicy) {
        precondition(capacity >= 1, "a bounded mailbox needs a capacity of at least 1")
        self.capacity = capacity
        self.whenFull = whenFull
    }

    // MARK: Observing

    /// Open, draining (``closeAfterDraining()``) or closed.
    var lifecycle: Lifecycle { phase }
    /// `true` while a drain is requested or running.
    var isScheduled: Bool { scheduled }
    /// `true` from the take of a batch until the drainer has counted it.
    var isRunningBatch: Bool { batchRunning }
    /// Entries waiting (a group's entry counts once).
    var pendingEntries: Int { pending.count }
    /// Deliveries waiting, not counting the batch in progress.
    var pendingDeliveries: Int { deliveriesPending }
    /// Deliveries waiting plus deliveries of the batch in progress.
    var load: Int { deliveriesPending + deliveriesInProgress }
    /// Producers waiting for space in a full ``EventOverflowPolicy/blockProducer(timeout:)`` mailbox.
    var blockedProducers: Int { producersBlocked }
    /// The type of the event the next batch would run first.
    var nextPendingEventType: (any Eventable.Type)? {
        var next: (any Eventable.Type)?
        pending.forEachInOrder { entry in
            next = type(of: entry.envelope.event)
            return false
        }
        return next
    }
    /// Barriers waiting for the pending entries.
    var pendingBarriers: Int { barriers.count }

    // MARK: Enqueue

    /// What a producer must do after an enqueue, once the lock is released. Every case but
    /// `.none` and `.wakeDrainer` hands an entry back, to be accounted for and freed outside
    /// the lock.
    ///
    /// Those cases are `indirect`: an entry holds an existential, which would make the action a
    /// type that is copied and destroyed through its value witnesses on every enqueue (some 75
    /// instructions per event in S1); boxed, the two common cases stay a word in a register, and
    /// only a refusal, which is rare, allocates.
    indirect enum EnqueueAction: Sendable {
        /// Accepted; the drainer is already scheduled.
        case none
        /// Accepted into an idle mailbox: wake its drainer.
        case wakeDrainer
        /// Not accepted: the mailbox is closing or closed. Count each delivery as discarded.
        case discard(_MailboxEntry)
        /// Not accepted: full, ``EventOverflowPolicy/dropNewest``. Count it as dropped.
        case dropNewest(_MailboxEntry)
        /// Not accepted: full, ``EventOverflowPolicy/failDispatch``. Count it as dropped and
        /// report the refusal to the dispatcher.
        case refuse(_MailboxEntry)
        /// Accepted: full, ``EventOverflowPolicy/dropOldest``; the entry that waited longest left
        /// to make room. Count that one as dropped.
        case droppedOldest(_MailboxEntry)
        /// Not accepted yet: full, ``EventOverflowPolicy/blockProducer(timeout:)``. The producer
        /// is counted as blocked; it waits until a take releases it, then enqueues again (or,
        /// when it is the drainer itself, calls ``enqueueOverCapacity(_:)`` at once).
        case blockProducer(_MailboxEntry)
    }

    /// The one way into the mailbox: appends `entry` if the mailbox is open and has room,
    /// otherwise applies the overflow policy.
    @inline(__always)
    mutating func enqueue(_ entry: consuming _MailboxEntry) -> EnqueueAction {
        guard phase == .open else { return .discard(entry) }
        if pending.count >= capacity { return overflow(entry) }
        return append(entry)
    }

    /// What ``enqueueIfRoom(method:priority:for:_:)`` did.
    enum RoomyEnqueue {
        /// Appended; the drainer is already scheduled.
        case appended
        /// Appended to an idle mailbox: wake its drainer.
        case appendedWakeDrainer
        /// Nothing appended: it would have allocated, or the mailbox is not open.
        case noRoom
    }

    /// Appends the entry `makeEntry` returns if that needs no allocation, for a producer holding
    /// a lock of its own (the bus's registry lock): the mailbox is open, and its lane and holds
    /// have room. Otherwise makes no entry and returns ``RoomyEnqueue/noRoom``; the producer
    /// enqueues it with ``enqueue(_:)`` once its lock is released. Only for an unbounded mailbox.
    @inline(__always)
    mutating func enqueueIfRoom(
        method: EventDispatchMethod, priority: EventPriority, for recipient: _MailboxRecipient,
        _ makeEntry: () -> _MailboxEntry
    ) -> RoomyEnqueue {
        assert(capacity == .max, "a bounded mailbox is never served under the registry lock")
        guard phase == .open, holds.canHoldWithoutAllocating(recipient),
            pending.appendIfRoom(method: method, priority: priority, makeEntry)
        else { return .noRoom }
        holds.hold(recipient)
        deliveriesPending += recipient.deliveryCount
        return scheduleIfIdle() ? .appendedWakeDrainer : .appended
    }

    /// Appends `entry` whatever the capacity, for a producer that found the mailbox full but
    /// must not wait: a handler dispatching to its own receiver would wait for itself (D5).
    /// Undoes the count of blocked producers that the enqueue made.
    mutating func enqueueOverCapacity(_ entry: consuming _MailboxEntry) -> EnqueueAction {
        // A take may have released the count already; the producer it signalled then retries.
        if producersBlocked > 0 { producersBlocked -= 1 }
        guard phase == .open else { return .discard(entry) }
        return append(entry)
    }

    @inline(__always)
    private mutating func append(_ entry: consuming _MailboxEntry) -> EnqueueAction {
        let method = entry.envelope.metadata.method
        let priority = entry.envelope.metadata.priority
        holds.hold(recipientOf: entry)
        deliveriesPending += entry.recipient.deliveryCount
        pending.append(entry, method: method, priority: priority)
        return scheduleIfIdle() ? .wakeDrainer : .none
    }

    /// A full mailbox; cold.
    @inline(never)
    private mutating func overflow(_ entry: consuming _MailboxEntry) -> EnqueueAction {
        switch whenFull {
        case .dropNewest:
            return .dropNewest(entry)
        case .failDispatch:
            return .refuse(entry)
        case .dropOldest:
            // Full means at least one entry waits (capacity >= 1), and so the drainer is
            // scheduled: the append never needs a wake.
            let oldest = pending.removeOldest().unsafelyUnwrapped
            deliveriesPending -= oldest.recipient.deliveryCount
            _ = append(entry)
            return .droppedOldest(oldest)
        case .blockProducer:
            // Counted under the same lock as the check, so that the next take releases it.
            producersBlocked += 1
            return .blockProducer(entry)
        }
    }

    /// Marks the mailbox scheduled; `true` when it was idle and its drainer must be woken.
    @inline(__always)
    private mutating func scheduleIfIdle() -> Bool {
        if scheduled { return false }
        scheduled = true
        return true
    }

    // MARK: Barriers

    /// What adding a barrier leaves to do.
    enum BarrierAction: Sendable, Equatable {
        /// Nothing is pending or running (or nothing ever will run again): run the barrier now.
        case runNow
        /// Kept; it runs after the batch that takes the entries before it.
        case none
    }

    /// Keeps `barrier` until every entry enqueued before it has been handled or discarded.
    mutating func addBarrier(_ barrier: @escaping @Sendable () -> Void) -> BarrierAction {
        // A closed or finished mailbox never runs another batch: nothing is left to wait for. An
        // unscheduled one has nothing pending or running (an enqueue, like a drain's start,
        // schedules it, and only a take that finds it empty unschedules it). A scheduled one
        // takes the barrier with its next batch, so it needs no wake.
        if phase == .closed || !scheduled { return .runNow }
        barriers.append(barrier)
        return .none
    }

    // MARK: Draining

    /// What the drainer does after a take.
    enum TakeAction: Sendable, Equatable {
        /// A batch of `deliveries` moved into the caller's buffers: run it, then call
        /// ``finishBatch()``. Wake `releasing` blocked producers first.
        case runBatch(deliveries: Int, releasing: Int)
        /// Nothing pending; the mailbox is still scheduled, and the drainer may look again.
        case lookAgain
        /// Nothing pending; the mailbox is now idle, and the next enqueue wakes the drainer.
        case park
        /// The mailbox is finished: the drainer stops.
        case finish
    }

    /// Moves everything pending, with its holds and the barriers that follow it, into `batch`
    /// (which must be empty). `mayIdle` lets an empty mailbox go idle.
    @inline(__always)
    mutating func take(into batch: inout _MailboxBatch, mayIdle: Bool) -> TakeAction {
        deliveriesInProgress = 0
        if phase == .closed { return .finish }
        if pending.isEmpty && barriers.isEmpty {
            if phase == .draining {
                phase = .closed
                return .finish
            }
            guard mayIdle else { return .lookAgain }
            scheduled = false
            return .park
        }
        swap(&pending, &batch.entries)
        swap(&holds, &batch.holds)
        swap(&barriers, &batch.barriers)
        deliveriesInProgress = deliveriesPending
        deliveriesPending = 0
        batchRunning = true
        // Every entry moved out, so there is room for every producer waiting for it.
        let releasing = producersBlocked
        producersBlocked = 0
        return .runBatch(deliveries: deliveriesInProgress, releasing: releasing)
    }

    /// Whom to resume once the lock is released.
    enum WaitersAction: Sendable {
        case none
        /// Call each of these once the lock is released.
        case resume([@Sendable () -> Void])
    }

    /// The batch in progress has been counted: it no longer adds to ``load``, and whoever
    /// waited for its count may go on.
    @inline(__always)
    mutating func finishBatch() -> WaitersAction {
        deliveriesInProgress = 0
        batchRunning = false
        if batchWaiters.isEmpty { return .none }
        defer { batchWaiters = [] }
        return .resume(batchWaiters)
    }

    /// Keeps `waiter` until the batch in progress has been counted; `.resume([waiter])` when no
    /// batch is in progress.
    mutating func whenBatchCounted(_ waiter: @escaping @Sendable () -> Void) -> WaitersAction {
        guard batchRunning else { return .resume([waiter]) }
        batchWaiters.append(waiter)
        return .none
    }

    // MARK: Closing

    /// What closing at once leaves to do.
    struct CloseAction: Sendable {
        /// The pending deliveries, now in the caller's batch: count them as discarded, then
        /// free them.
        var discarded: Int
        /// The barriers that waited for them: run them.
        var barriers: [@Sendable () -> Void]
        /// The drainer is idle: wake it, so that it finds the mailbox finished. A drain in
        /// progress finishes by itself, so a second one is never started.
        var wakeDrainer: Bool
        /// Blocked producers to wake; each finds the mailbox closed.
        var releasing: Int
    }

    /// Closes the mailbox at once: it accepts and delivers nothing more. The pending entries and
    /// their holds move into `dropped` (which must be empty), for the caller to free once the
    /// lock is released: an event's or a subscription's `deinit` is user code.
    mutating func close(droppingInto dropped: inout _MailboxBatch) -> CloseAction {
        phase = .closed
        swap(&pending, &dropped.entries)
        swap(&holds, &dropped.holds)
        let action = CloseAction(
            discarded: deliveriesPending, barriers: barriers, wakeDrainer: scheduleIfIdle(),
            releasing: producersBlocked)
        deliveriesPending = 0
        barriers = []
        producersBlocked = 0
        return action
    }

    /// Whether the drainer must be woken.
    enum DrainerAction: Sendable, Equatable {
        case none
        case wakeDrainer
    }

    /// Stops accepting new entries; what is pending is still delivered, then the drainer
    /// finishes.
    mutating func closeAfterDraining() -> DrainerAction {
        if phase == .open { phase = .draining }
        return scheduleIfIdle() ? .wakeDrainer : .none
    }
}

/// What the drainer takes from the state machine in one go, and what a close hands out: entries,
/// the holds that keep their subscriptions alive, and the barriers that follow them.
///
/// The drainer keeps one for good and the machine swaps it for its pending one, so the buffers
/// of both are reused batch after batch.
struct _MailboxBatch: ~Copyable, Sendable {
    var entries = _MailboxLanes<_MailboxEntry>()
    var holds = _SubscriptionHolds()
    var barriers: [@Sendable () -> Void] = []

    init() {}

    /// Frees the entries and releases the holds, keeping the buffers for reuse; the barriers
    /// stay. Never under a lock: an event's or a subscription's `deinit` is user code.
    mutating func releaseEntries() {
        entries.removeAll()
        holds.removeAll()
    }
}

extension _MailboxLanes where Entry == _MailboxEntry {
    /// Removes the entry dispatched earliest, for ``EventOverflowPolicy/dropOldest``.
    mutating func removeOldest() -> _MailboxEntry? {
        removeOldest { $0.envelope.metadata.dispatchTime < $1.envelope.metadata.dispatchTime }
    }
}
