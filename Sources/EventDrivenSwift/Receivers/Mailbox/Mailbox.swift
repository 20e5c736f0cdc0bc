import Dispatch
import Synchronization

/// The serial inbox of one receiver: an EventThread, the listener thread of a bus, a listener's
/// requester context, the main actor.
///
/// Enqueueing takes no lock: a producer stores its delivery in a node (``_MailboxNodes``) and
/// pushes the node with one compare-and-exchange on the mailbox's control word
/// (``_MailboxState``), which also tells it whether the drainer was idle and must be woken. The
/// drainer takes every pending node at once, runs them in D3 order, one at a time, outside any
/// lock, and gives the nodes back; events that arrive meanwhile wait for the next batch. So a
/// producer never waits on a handler (nor on the drainer, unless its bounded mailbox asks it
/// to), and steady-state delivery allocates nothing.
final class _Mailbox: Sendable {
    /// The ``_MailboxState`` word.
    private let word = Atomic<UInt64>(_MailboxState().word)
    private let nodes = _MailboxNodes()
    /// Set by ``close()``, so that the drainer stops between two deliveries of a batch.
    private let isClosed = Atomic<Bool>(false)
    /// Deliveries the drainer took and has not counted yet.
    private let inProgress = Atomic<Int>(0)
    private let drainer = _DrainerBuffers()
    /// Who waits for the batch in progress to be counted (see ``whenBatchCounted(_:)``).
    private let batchWaiters = _BatchWaiters()
    /// Starts drains when the mailbox goes from idle to busy.
    let executor: _MailboxExecutor
    /// Where this mailbox reports what it delivered and discarded.
    let counters: _BusCounters
    /// The bound and overflow policy; `nil` for the default unbounded mailbox.
    let limit: _MailboxLimit?
    /// How many times a drain was requested (see ``_MailboxExecutor/wake(_:)``), for tests of
    /// the one-drainer rule.
    let drainRequests = _DrainRequestCount()

    init(executor: _MailboxExecutor, counters: _BusCounters, limit: _MailboxLimit? = nil) {
        self.executor = executor
        self.counters = counters
        self.limit = limit
    }

    deinit {
        // Nothing drains any more: free what is still pending (events and subscriptions).
        var state = _MailboxState(word: word.load(ordering: .acquiring))
        let pending = state.close()
        var index = pending.top
        while index != 0 {
            let below = nodes.linked(below: index).below
            _ = nodes.moveItem(index)
            index = below
        }
    }

    // MARK: Enqueue

    /// The lane of D3 a delivery waits in: stacked lanes 0...4 run before queued lanes 5...9,
    /// highest priority first.
    private static func lane(of metadata: EventMetadata) -> UInt32 {
        (metadata.method == .stack ? 0 : 5) + UInt32(metadata.priority.rawValue)
    }

    /// The tag of a barrier's node.
    private static let barrierTag: UInt32 = 10

    /// Appends a delivery of `envelope` to `subscription`; `false` when it was not accepted
    /// (the mailbox is closed, or full and its policy refused it).
    @discardableResult
    func enqueue(_ envelope: _EventEnvelope, for subscription: _Subscription) -> Bool {
        let lane = Self.lane(of: envelope.metadata)
        guard let node = nodes.take(storing: .delivery(envelope, subscription)) else {
            return refuseOutOfNodes(envelope)
        }
        // A dropOldest mailbox takes every event; its drainer drops the oldest beyond the capacity.
        let capacity = limit.map { $0.dropsOldest ? .max : $0.capacity } ?? .max
        return push(node, lane: lane, capacity: capacity, eventType: type(of: envelope.event))
    }

    /// Pushes `node` (a delivery in `lane`) if the mailbox has room; otherwise applies the
    /// overflow policy (Reliability/Mailbox+Overflow.swift).
    func push(_ node: UInt32, lane: UInt32, capacity: Int, eventType: any Eventable.Type) -> Bool {
        switch tryPush(node, lane: lane, capacity: capacity, eventType: eventType) {
        case .pushed: return true
        case .full: return overflow(node, lane: lane, eventType: eventType)
        case .refused:
            discard(node)
            return false
        }
    }

    /// What ``tryPush(_:lane:capacity:)`` did.
    enum PushResult {
        case pushed
        /// Not pushed; the caller still owns the node.
        case full
        /// Not pushed: the mailbox is closed; the caller still owns the node.
        case refused
    }

    /// Pushes `node` with one compare-and-exchange (again if another thread changed the word
    /// first), and wakes the drainer if it was idle (for an event of `eventType`, which a main
    /// queue that does not run names in its warning).
    @inline(__always)
    func tryPush(_ node: UInt32, lane: UInt32, capacity: Int, eventType: any Eventable.Type) -> PushResult {
        var current = word.load(ordering: .relaxed)
        while true {
            var state = _MailboxState(word: current)
            switch state.push(node, deliveries: 1, capacity: capacity) {
            case .pushed(let below, let wake):
                nodes.setLink(node, to: below, tag: lane)
                let (exchanged, seen) = word.compareExchange(
                    expected: current, desired: state.word, ordering: .releasing)
                guard exchanged else {
                    current = seen
                    continue
                }
                if wake { executor.wake(self, for: eventType) }
                return .pushed
            case .full:
                return .full
            case .refused:
                return .refused
            }
        }
    }

    /// Counts a delivery the closed mailbox did not accept as discarded.
    func discard(_ node: UInt32) {
        guard case .delivery(let envelope, _) = unpush(node) else { return }
        counters.discarded.add(1, ordering: .relaxed)
        counters.deadLetters.post(envelope, reason: .discarded)
    }

    /// Takes back a node that was not pushed, and frees it.
    func unpush(_ node: UInt32) -> _MailboxItem {
        let item = nodes.moveItem(node)
        nodes.free(top: node, bottom: node)
        return item
    }

    /// A mailbox that has handed out every node index (2³² − 1 pending at once): the event is
    /// dropped, counted and posted as a dead letter.
    @inline(never)
    private func refuseOutOfNodes(_ envelope: _EventEnvelope) -> Bool {
        drop(envelope)
        return false
    }

    // MARK: Barriers, load, close

    /// Runs `body` once everything enqueued before this call has been handled (or discarded).
    func addBarrier(_ body: @escaping @Sendable () -> Void) {
        guard let node = nodes.take(storing: .barrier(body)) else { return body() }
        var current = word.load(ordering: .relaxed)
        while true {
            var state = _MailboxState(word: current)
            switch state.pushBarrier(node) {
            case .runNow:
                _ = unpush(node)
                return body()
            case .pushed(let below):
                nodes.setLink(node, to: below, tag: Self.barrierTag)
                let (exchanged, seen) = word.compareExchange(
                    expected: current, desired: state.word, ordering: .releasing)
                if exchanged { return }
                current = seen
            }
        }
    }

    /// The control state, as a copy.
    var state: _MailboxState { _MailboxState(word: word.load(ordering: .acquiring)) }

    /// Deliveries waiting plus deliveries of the batch in progress.
    var load: Int { state.count + inProgress.load(ordering: .relaxed) }

    /// Closes the mailbox at once. Returns how many pending deliveries were discarded.
    @discardableResult
    func close() -> Int {
        isClosed.store(true, ordering: .sequentiallyConsistent)
        let action = update { $0.close() }
        var barriers: [@Sendable () -> Void] = []
        let observed = counters.deadLetters.isObserved
        var index = action.top
        var bottom = action.top
        while index != 0 {
            bottom = index
            let below = nodes.linked(below: index).below
            switch nodes.moveItem(index) {
            case .delivery(let envelope, _):
                if observed { counters.deadLetters.post(envelope, reason: .discarded) }
            case .barrier(let body):
                barriers.append(body)
            }
            index = below
        }
        if action.top != 0 { nodes.free(top: action.top, bottom: bottom) }
        counters.discarded.add(action.count, ordering: .relaxed)
        limit?.wakeBlockedProducers()
        // Pushed newest first: run them in the order they were added.
        for barrier in barriers.reversed() { barrier() }
        if action.wakeDrainer { executor.wake(self) }
        return action.count
    }

    /// Stops accepting events; what is pending is still delivered, then the drainer finishes.
    func closeAfterDraining() {
        if update({ $0.closeAfterDraining() }) { executor.wake(self) }
    }

    /// Calls `body` once the batch in progress, if any, has been counted; a shutdown waits for
    /// this after a close, so that what the close left of the batch is counted and posted
    /// before the shutdown returns.
    func whenBatchCounted(_ body: @escaping @Sendable () -> Void) {
        batchWaiters.add(body)
    }

    /// Runs `transition` on the control state atomically and returns its action.
    private func update<Action>(_ transition: (inout _MailboxState) -> Action) -> Action {
        var current = word.load(ordering: .acquiring)
        while true {
            var state = _MailboxState(word: current)
            let action = transition(&state)
            let (exchanged, seen) = word.compareExchange(
                expected: current, desired: state.word, ordering: .acquiringAndReleasing)
            if exchanged { return action }
            current = seen
        }
    }

    // MARK: Draining

    /// The outcome of one step of the drainer.
    enum Step {
        case ran
        case empty
        case idle
        case finished
    }

    /// Takes the pending batch and handles it. Only the mailbox's single drainer calls this: a
    /// drain is started only by the push that found the mailbox idle, and it ends by parking.
    func runBatch(mayIdle: Bool) -> Step {
        batchWaiters.batchStarts()
        let action = update { $0.take(mayIdle: mayIdle) }
        guard case .run(let top, let count) = action else {
            batchWaiters.batchEnds()
            switch action {
            case .park: return .idle
            case .finish: return .finished
            default: return .empty
            }
        }
        inProgress.store(count, ordering: .relaxed)
        // Every pending delivery left the stack, so there is room for every blocked producer.
        limit?.wakeBlockedProducers()
        let buffers = drainer
        let bottom = sortIntoLanes(top: top, count: count, buffers)
        buffers.batchCount = count - buffers.droppedOldest
        buffers.remaining = buffers.batchCount
        buffers.lastDiscarded = 0
        var tally = _DeliveryTally()
        for lane in 0..<10 where !buffers.lanes[lane].isEmpty {
            // Stacked lanes run newest first, queued ones oldest first; the stack gave newest first.
            if lane < 5 {
                for node in buffers.lanes[lane] { run(node, &tally) }
            } else {
                for node in buffers.lanes[lane].reversed() { run(node, &tally) }
            }
            buffers.lanes[lane].removeAll(keepingCapacity: true)
        }
        if buffers.lastDiscarded > 0 { counters.discarded.add(buffers.lastDiscarded, ordering: .relaxed) }
        counters.record(tally)
        nodes.free(top: top, bottom: bottom)
        inProgress.store(0, ordering: .relaxed)
        batchWaiters.batchEnds()
        let barriers = buffers.barriers
        buffers.barriers.removeAll(keepingCapacity: true)
        for barrier in barriers.reversed() { barrier() }
        return .ran
    }

    /// Puts the nodes of the stack from `top` into the drainer's lanes (barriers aside, the
    /// oldest beyond a dropOldest capacity dropped), and returns the bottom node.
    private func sortIntoLanes(top: UInt32, count: Int, _ buffers: _DrainerBuffers) -> UInt32 {
        let excess = limit.map { $0.dropsOldest ? max(0, count - $0.capacity) : 0 } ?? 0
        buffers.droppedOldest = excess
        var dropped: [_EventEnvelope] = []
        defer {
            // Found newest first: count them oldest first.
            for envelope in dropped.reversed() { drop(envelope) }
        }
        var ordinal = 0
        var index = top
        var bottom = top
        while index != 0 {
            bottom = index
            let (below, tag) = nodes.linked(below: index)
            if tag == Self.barrierTag {
                if case .barrier(let body) = nodes.moveItem(index) { buffers.barriers.append(body) }
            } else if ordinal >= count - excess {
                // The oldest of a full dropOldest mailbox: made room for newer ones.
                if case .delivery(let envelope, _) = nodes.moveItem(index) { dropped.append(envelope) }
            } else {
                buffers.lanes[Int(tag)].append(index)
            }
            if tag != Self.barrierTag { ordinal += 1 }
            index = below
        }
        return bottom
    }

    /// Runs the delivery in `node`, unless the mailbox was closed meanwhile.
    @inline(__always)
    private func run(_ node: UInt32, _ tally: inout _DeliveryTally) {
        guard case .delivery(let envelope, let subscription) = nodes.moveItem(node) else { return }
        guard !isClosed.load(ordering: .relaxed) else {
            drainer.lastDiscarded += 1
            if counters.deadLetters.isObserved { counters.deadLetters.post(envelope, reason: .discarded) }
            return
        }
        drainer.remaining -= 1
        let outcome = subscription.deliver(envelope)
        tally.record(outcome)
        if outcome != .delivered { counters.noteUndelivered(outcome, envelope) }
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
// @unchecked Sendable: only the mailbox's single drainer touches it (one drain at a time)
final class _DrainerBuffers: @unchecked Sendable {
    /// The nodes of the batch in the ten lanes of D3, in the order the stack gave them (newest first).
    var lanes: [[UInt32]] = Array(repeating: [], count: 10)
    var barriers: [@Sendable () -> Void] = []
    var droppedOldest = 0
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
