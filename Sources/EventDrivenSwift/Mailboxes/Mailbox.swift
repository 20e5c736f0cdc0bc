import Dispatch
import Synchronization

/// The serial inbox of one receiver: an EventThread, the listener thread of a bus, or a
/// listener's requester context.
///
/// Producers append under a short lock and wake the drainer only when it was idle. The drainer
/// takes everything pending at once and runs it in D3 order outside the lock, so a producer
/// never waits on a handler, and events that arrive meanwhile wait for the next batch.
final class _Mailbox: Sendable {
    /// The state machine and the lock that guards it; only this type's methods touch either, and
    /// they perform what a transition returns once the lock is released.
    private let state: _PILockedValue<_MailboxStateMachine>
    /// Mirrors `lifecycle == .closed` so the drainer can stop mid-batch without the lock.
    private let isClosed = Atomic<Bool>(false)
    private let drainer = _DrainerBuffers()
    /// Starts drains when the mailbox goes from idle to busy.
    let executor: _MailboxExecutor
    /// Where this mailbox reports what it delivered and discarded.
    let counters: _BusCounters
    /// The bound and overflow policy; `nil` for the default unbounded mailbox.
    let limit: _MailboxLimit?
    /// How many times a drain was requested (see ``_MailboxExecutor/wake(_:)``), for tests of
    /// the one-drainer rule; touched only by wakes, which are rare.
    let drainRequests = _DrainRequestCount()

    init(executor: _MailboxExecutor, counters: _BusCounters, limit: _MailboxLimit? = nil) {
        self.executor = executor
        self.counters = counters
        self.limit = limit
        state = _PILockedValue(
            limit.map { _MailboxStateMachine(capacity: $0.capacity, whenFull: $0.whenFull) } ?? _MailboxStateMachine())
    }

    // MARK: Enqueue

    /// Appends an entry for `envelope` and the subscription `subscription` refers to, which the
    /// caller keeps alive; returns `false` when the entry was not accepted.
    @discardableResult
    func enqueue(_ envelope: _EventEnvelope, for subscription: Unmanaged<_Subscription>) -> Bool {
        enqueue({ envelope }, holdsInlineEvent: false, for: subscription)
    }

    /// ``enqueue(_:for:)`` for the envelope `makeEnvelope` returns, built under the lock straight
    /// into the entry; `holdsInlineEvent` marks the entry to run in place (see ``_MailboxEntry``).
    @discardableResult
    @inline(never)
    func enqueue(
        _ makeEnvelope: () -> _EventEnvelope, holdsInlineEvent: Bool, for subscription: Unmanaged<_Subscription>
    ) -> Bool {
        enqueue(makeEnvelope, holdsInlineEvent: holdsInlineEvent, for: _MailboxRecipient(subscription))
    }

    /// ``enqueue(_:holdsInlineEvent:for:)`` for a subscription or a group of them, which the
    /// caller keeps alive.
    @discardableResult
    @inline(__always)
    func enqueue(_ makeEnvelope: () -> _EventEnvelope, holdsInlineEvent: Bool, for recipient: _MailboxRecipient)
        -> Bool
    {
        let action = append(makeEnvelope, holdsInlineEvent: holdsInlineEvent, for: recipient)
        if case .none = action { return true }
        return finishEnqueue(action)
    }

    /// The one enqueue: runs the state machine's enqueue under the lock, with the entry for the
    /// envelope `makeEnvelope` returns built under it, so that the envelope moves into its lane
    /// without a copy. The caller performs the returned action with ``finishEnqueue(_:)`` once
    /// every lock it holds is released (the bus defers it past its registry lock).
    @inline(__always)
    func append(_ makeEnvelope: () -> _EventEnvelope, holdsInlineEvent: Bool, for recipient: _MailboxRecipient)
        -> _MailboxStateMachine.EnqueueAction
    {
        state.withLock { state in
            state.enqueue(
                _MailboxEntry(envelope: makeEnvelope(), recipient: recipient, holdsInlineEvent: holdsInlineEvent))
        }
    }

    /// ``append(_:holdsInlineEvent:for:)`` for a producer that holds the registry lock: the
    /// entry is appended only if that needs no allocation (see
    /// ``_MailboxStateMachine/enqueueIfRoom(method:priority:for:_:)``).
    @inline(__always)
    func appendIfRoom(
        _ makeEnvelope: () -> _EventEnvelope, method: EventDispatchMethod, priority: EventPriority,
        holdsInlineEvent: Bool, for recipient: _MailboxRecipient
    ) -> _MailboxStateMachine.RoomyEnqueue {
        state.withLock { state in
            state.enqueueIfRoom(method: method, priority: priority, for: recipient) {
                _MailboxEntry(envelope: makeEnvelope(), recipient: recipient, holdsInlineEvent: holdsInlineEvent)
            }
        }
    }

    /// Performs what an enqueue left to do once the lock is released: wake the drainer, or
    /// account for an entry the mailbox refused or dropped (Reliability/Mailbox+Overflow.swift),
    /// which is freed here, outside the lock.
    /// - Returns: `false` when the entry was not accepted.
    func finishEnqueue(_ action: consuming _MailboxStateMachine.EnqueueAction) -> Bool {
        switch consume action {
        case .none:
            return true
        case .wakeDrainer:
            executor.wake(self)
            return true
        case .discard(let entry):
            counters.discarded.add(entry.recipient.deliveryCount, ordering: .relaxed)
            for _ in 0..<entry.recipient.deliveryCount { counters.deadLetters.post(entry.envelope, reason: .discarded) }
            return false
        case .dropNewest(let entry):
            drop(entry.envelope)
            return false
        case .refuse(let entry):
            drop(entry.envelope)
            limit?.reportRefused(entry.envelope)
            return false
        case .droppedOldest(let oldest):
            drop(oldest.envelope)
            return true
        case .blockProducer(let entry):
            return waitForSpace(entry)
        }
    }

    /// Appends `entry`, which found the mailbox full, whatever the capacity: its producer is
    /// this mailbox's own drainer (see ``_MailboxStateMachine/enqueueOverCapacity(_:)``).
    func enqueueOverCapacity(_ entry: _MailboxEntry) -> _MailboxStateMachine.EnqueueAction {
        state.withLock { $0.enqueueOverCapacity(entry) }
    }

    // MARK: Barriers, load, close

    /// Runs `body` once everything enqueued before this call has been handled (or discarded).
    func addBarrier(_ body: @escaping @Sendable () -> Void) {
        if state.withLock({ $0.addBarrier(body) }) == .runNow { body() }
    }

    /// Reads the state machine under the lock, for ``lifecycleForTesting`` and the like.
    func withStateForTesting<Value>(_ body: (borrowing _MailboxStateMachine) -> Value) -> Value {
        state.withLock { body($0) }
    }

    /// Deliveries waiting plus deliveries of the batch in progress.
    var load: Int {
        state.withLock { $0.load }
    }

    /// The type of the event that would run next, if any.
    var nextPendingEventType: (any Eventable.Type)? {
        state.withLock { $0.nextPendingEventType }
    }

    /// `true` while no drain is requested or running: the drainer is parked, or about to park.
    var isIdle: Bool {
        state.withLock { !$0.isScheduled }
    }

    /// Closes the mailbox at once. Returns how many pending deliveries were discarded.
    @discardableResult
    func close() -> Int {
        isClosed.store(true, ordering: .sequentiallyConsistent)
        var dropped = _MailboxBatch()
        let action = state.withLock { $0.close(droppingInto: &dropped) }
        counters.discarded.add(action.discarded, ordering: .relaxed)
        if counters.deadLetters.isObserved {
            dropped.entries.forEachInOrder { entry in
                for _ in 0..<entry.recipient.deliveryCount {
                    counters.deadLetters.post(entry.envelope, reason: .discarded)
                }
                return true
            }
        }
        // Outside the lock: freeing an event or a subscription may run user code that dispatches.
        dropped.releaseEntries()
        if action.releasing > 0 { limit?.wake(action.releasing) }
        for barrier in action.barriers { barrier() }
        if action.wakeDrainer { executor.wake(self) }
        return action.discarded
    }

    /// Calls `body` once the batch in progress, if any, has been counted; a shutdown waits for
    /// this after a close, so that what the close left of the batch is counted and posted
    /// before the shutdown returns.
    func whenBatchCounted(_ body: @escaping @Sendable () -> Void) {
        if case .resume(let waiters) = state.withLock({ $0.whenBatchCounted(body) }) {
            for waiter in waiters { waiter() }
        }
    }

    /// Stops accepting events; what is pending is still delivered, then the drainer finishes.
    func closeAfterDraining() {
        if state.withLock({ $0.closeAfterDraining() }) == .wakeDrainer {
            executor.wake(self)
        }
    }

    /// The outcome of one step of the drainer.
    enum Step {
        case ran
        case empty
        case idle
        case finished
    }

    /// Takes the pending batch and handles it. Only the mailbox's single active drainer calls
    /// this; the `isScheduled` handshake under the lock guarantees there is one at a time.
    func runBatch(mayIdle: Bool) -> Step {
        let buffers = drainer
        let deliveries: Int
        switch state.withLock({ $0.take(into: &buffers.batch, mayIdle: mayIdle) }) {
        case .lookAgain: return .empty
        case .park: return .idle
        case .finish: return .finished
        case .runBatch(let count, let releasing):
            if releasing > 0 { limit?.wake(releasing) }
            deliveries = count
        }
        var tally = _DeliveryTally()
        buffers.batchCount = deliveries
        buffers.remaining = deliveries
        buffers.lastDiscarded = 0
        // Each entry leaves the batch as it runs: what a close leaves is the rest. An entry of an
        // inline event runs in place and needs no destruction; any other is moved out to run.
        // A close also stops an entry for a group between two of its subscriptions.
        let isOpen = { !self.isClosed.load(ordering: .relaxed) }
        let proceed = {
            guard isOpen() else { return false }
            buffers.remaining -= 1
            return true
        }
        let observed = counters.deadLetters.isObserved
        buffers.batch.entries.removeEachInOrder(while: isOpen) { slot in
            if slot.pointee.holdsInlineEvent {
                _MailboxEntry.deliverInPlace(
                    slot, proceed: proceed,
                    outcome: { outcome in
                        tally.record(outcome)
                        if outcome != .delivered { counters.noteUndelivered(outcome, slot.pointee.envelope) }
                    },
                    skipped: { if observed { counters.deadLetters.post(slot.pointee.envelope, reason: .discarded) } })
            } else {
                let entry = slot.move()
                entry.deliver(
                    proceed: proceed,
                    outcome: { outcome in
                        tally.record(outcome)
                        if outcome != .delivered { counters.noteUndelivered(outcome, entry.envelope) }
                    },
                    skipped: { if observed { counters.deadLetters.post(entry.envelope, reason: .discarded) } })
            }
        }
        if isClosed.load(ordering: .relaxed) {
            let undelivered = buffers.remaining
            counters.discarded.add(undelivered, ordering: .relaxed)
            buffers.lastDiscarded = undelivered
            if undelivered > 0 && observed { postDiscardedRest(of: buffers) }
        }
        counters.record(tally)
        // Outside the lock: freeing an event or a subscription may run user code that dispatches.
        buffers.batch.releaseEntries()
        // The batch is done: `load` must not count it while the drainer waits before its next take.
        if case .resume(let waiters) = state.withLock({ $0.finishBatch() }) {
            for waiter in waiters { waiter() }
        }
        let barriers = buffers.batch.barriers
        buffers.batch.barriers.removeAll(keepingCapacity: true)
        for barrier in barriers { barrier() }
        return .ran
    }

    /// Posts dead letters for the entries of the batch that a close left unhandled (the entries
    /// still in the batch: the handled ones were moved out), one per delivery.
    private func postDiscardedRest(of buffers: _DrainerBuffers) {
        buffers.batch.entries.forEachInOrder { entry in
            for _ in 0..<entry.recipient.deliveryCount { counters.deadLetters.post(entry.envelope, reason: .discarded) }
            return true
        }
    }

    /// Runs batches until the mailbox is idle or finished, or until a time slice is used up;
    /// used by queue-based executors.
    /// - Parameters:
    ///   - lingerNanoseconds: How long to keep looking after the last batch before going idle
    ///     (see ``_DrainPacing``); `0` goes idle as soon as nothing is pending.
    ///   - sliceNanoseconds: How long to run before handing the queue's thread back while a
    ///     stream piles up (the last batch held more than one event); ten times as long in any
    ///     case, so that a request-response exchange is not interrupted every slice. `nil` runs
    ///     until idle.
    /// - Returns: `true` when the slice ran out: the drain is still scheduled and the caller
    ///   must submit it again.
    func runUntilIdle(lingerNanoseconds: UInt64 = 0, sliceNanoseconds: UInt64? = nil) -> Bool {
        var pacing = _DrainPacing(lingerNanoseconds: lingerNanoseconds)
        let start = sliceNanoseconds == nil ? 0 : DispatchTime._eventNow.uptimeNanoseconds
        while true {
            switch runBatch(mayIdle: pacing.mayIdle) {
            case .ran:
                pacing.ran(batchCount: lastBatchCount)
                if let sliceNanoseconds {
                    let elapsed = DispatchTime._eventNow.uptimeNanoseconds &- start
                    if elapsed >= sliceNanoseconds && (lastBatchCount > 1 || elapsed >= 10 * sliceNanoseconds) {
                        return true
                    }
                }
            case .empty: pacing.foundEmpty()
            case .idle, .finished: return false
            }
        }
    }

    /// How many deliveries of the last batch a close discarded. Read only after the drainer has
    /// stopped, or by the drainer's own thread.
    var discardedFromLastBatch: Int { drainer.lastDiscarded }

    /// How many deliveries the last batch held. Read only by the drainer's own thread.
    var lastBatchCount: Int { drainer.batchCount }

    /// How many deliveries of the batch in progress come after the one being handled. Read only
    /// by the drainer's own thread, from inside a handler.
    var remainingInCurrentBatch: Int { drainer.remaining }
}

/// The drainer's working buffers, reused batch after batch so that steady-state draining
/// allocates nothing.
// @unchecked Sendable: used only by the single active drainer, handed over under the mailbox lock
private final class _DrainerBuffers: @unchecked Sendable {
    var batch = _MailboxBatch()
    var lastDiscarded = 0
    var batchCount = 0
    /// Deliveries of the batch not yet started.
    var remaining = 0
}

/// Counts the drain requests of one mailbox.
final class _DrainRequestCount: Sendable {
    private let count = Atomic<Int>(0)

    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
