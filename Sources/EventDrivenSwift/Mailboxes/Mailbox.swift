import Dispatch
import Synchronization

/// The serial inbox of one receiver: an EventThread, the listener thread of a bus, or a
/// listener's requester context.
///
/// Producers append under a short lock and wake the drainer only when it was idle. The drainer
/// takes everything pending at once and runs it in D3 order outside the lock, so a producer
/// never waits on a handler, and events that arrive meanwhile wait for the next batch.
final class _Mailbox: Sendable {
    /// Internal rather than private so that the overflow policies (Reliability/) can reach it.
    let state = _SpinLockedValue(_MailboxState())
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
        if let limit { state.withLock { limit.configure(&$0) } }
    }

    /// Appends an entry for `envelope` and the subscription `subscription` refers to, which the
    /// caller keeps alive; returns `false` when the mailbox no longer accepts events.
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
        let recipient = _MailboxRecipient(subscription)
        let action = state.withLock { state -> _MailboxState.EnqueueAction in
            if let refusal = state.refusal() { return refusal }
            return state.append(
                _MailboxEntry(envelope: makeEnvelope(), recipient: recipient, holdsInlineEvent: holdsInlineEvent))
        }
        if action == .none { return true }
        // A wake is rare (the drainer was idle) and costs far more than the optional.
        var refused =
            action == .wake
            ? nil : _MailboxEntry(envelope: makeEnvelope(), recipient: recipient, holdsInlineEvent: holdsInlineEvent)
        return finishEnqueue(action, leftover: &refused)
    }

    /// Does what an enqueue left to do once the lock is released: wake the drainer, or account
    /// for the entry still in `slot` (a closed or full mailbox).
    /// - Returns: `false` when the entry was not accepted.
    func finishEnqueue(_ action: _MailboxState.EnqueueAction, leftover slot: inout _MailboxEntry?) -> Bool {
        switch action {
        case .none: return true
        case .wake:
            executor.wake(self)
            return true
        case .rejected:
            let entry = slot.take()!
            counters.discarded.add(entry.recipient.deliveryCount, ordering: .relaxed)
            for _ in 0..<entry.recipient.deliveryCount { counters.deadLetters.post(entry.envelope, reason: .discarded) }
            return false
        case .full:
            return overflow(slot.take()!)
        }
    }

    /// Runs `body` once everything enqueued before this call has been handled (or discarded).
    func addBarrier(_ body: @escaping @Sendable () -> Void) {
        switch state.withLock({ $0.addBarrier(body) }) {
        case .runNow: body()
        case .none: break
        case .wake: executor.wake(self)
        }
    }

    /// Deliveries waiting plus deliveries of the batch in progress.
    var load: Int {
        state.withLock { $0.pendingDeliveries + $0.inProgress }
    }

    /// `true` while no drain is requested or running: the drainer is parked, or about to park.
    var isIdle: Bool {
        state.withLock { !$0.isScheduled }
    }

    /// Deliveries waiting, not counting the batch in progress.
    var pendingCount: Int {
        state.withLock { $0.pendingDeliveries }
    }

    /// Closes the mailbox at once. Returns how many pending deliveries were discarded.
    @discardableResult
    func close() -> Int {
        isClosed.store(true, ordering: .sequentiallyConsistent)
        var dropped = _MailboxLanes<_MailboxEntry>()
        var droppedHolds = _SubscriptionHolds()
        let (discarded, barriers, wake) = state.withLock { state in
            state.close(droppingInto: &dropped, holds: &droppedHolds)
        }
        counters.discarded.add(discarded, ordering: .relaxed)
        if counters.deadLetters.isObserved {
            dropped.forEachInOrder { entry in
                for _ in 0..<entry.recipient.deliveryCount {
                    counters.deadLetters.post(entry.envelope, reason: .discarded)
                }
                return true
            }
        }
        // Outside the lock: freeing an event or a subscription may run user code that dispatches.
        dropped.removeAll()
        droppedHolds.removeAll()
        if let limit { limit.wake(state.withLock { $0.releaseBlockedProducers() }) }
        for barrier in barriers { barrier() }
        if wake { executor.wake(self) }
        return discarded
    }

    /// Calls `body` once the batch in progress, if any, has been counted; a shutdown waits for
    /// this after a close, so that what the close left of the batch is counted and posted
    /// before the shutdown returns.
    func whenBatchCounted(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            guard state.isRunningBatch else { return true }
            state.batchWaiters.append(body)
            return false
        }
        if runNow { body() }
    }

    /// Stops accepting events; what is pending is still delivered, then the drainer finishes.
    func closeAfterDraining() {
        if state.withLock({ $0.closeAfterDraining() }) == .wake {
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
        let (taken, deliveries, producersToWake) = state.withLock { state in
            let taken = state.take(
                into: &buffers.batch, holds: &buffers.holds, barriers: &buffers.barriers, mayIdle: mayIdle)
            defer { state.producersToWake = 0 }
            return (taken, state.inProgress, state.producersToWake)
        }
        if producersToWake > 0 { limit?.wake(producersToWake) }
        switch taken {
        case .empty: return .empty
        case .idle: return .idle
        case .finished: return .finished
        case .batch: break
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
        buffers.batch.removeEachInOrder(while: isOpen) { slot in
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
        buffers.batch.removeAll()
        buffers.holds.removeAll()
        // The batch is done: `load` must not count it while the drainer waits before its next take.
        let counted = state.withLock { $0.finishBatch() }
        for waiter in counted { waiter() }
        let barriers = buffers.barriers
        buffers.barriers.removeAll(keepingCapacity: true)
        for barrier in barriers { barrier() }
        return .ran
    }

    /// Posts dead letters for the entries of the batch that a close left unhandled (the entries
    /// still in the batch: the handled ones were moved out), one per delivery.
    private func postDiscardedRest(of buffers: _DrainerBuffers) {
        buffers.batch.forEachInOrder { entry in
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
    var batch = _MailboxLanes<_MailboxEntry>()
    var holds = _SubscriptionHolds()
    var barriers: [@Sendable () -> Void] = []
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
