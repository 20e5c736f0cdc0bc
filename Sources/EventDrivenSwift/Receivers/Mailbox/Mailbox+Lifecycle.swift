// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

// What a mailbox does besides taking and running deliveries: barriers, its load, closing, and
// the drain loop of queue-based executors.
extension _Mailbox {
    /// Runs `body` once everything enqueued before this call has been handled (or discarded).
    func addBarrier(_ body: @escaping @Sendable () -> Void) {
        guard let (node, _) = nodes.take(storing: .barrier(body)) else { return body() }
        var current = word.load(ordering: .relaxed)
        while true {
            var state = _MailboxState(word: current)
            switch state.pushBarrier(node) {
            case .runNow:
                unpush(_UnpushedNodes(node))
                return body()
            case .pushed(let below):
                nodes.setLink(node, to: below, tag: barrierTag)
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
        // Until what it discards is counted, a shutdown waiting for this mailbox's counts waits
        // for it too (``whenBatchCounted(_:)``), whoever closes.
        batchWaiters.closeStarts()
        isClosed.store(true, ordering: .sequentiallyConsistent)
        let action = update { $0.close() }
        var barriers: [@Sendable () -> Void] = []
        let observed = counters.deadLetters.isObserved
        var index = action.top
        var bottom = action.top
        while index != 0 {
            bottom = index
            let below = nodes.linked(below: index).below
            switch nodes.takeUnrun(index) {
            case .deliveries(let envelope, let count):
                if observed { for _ in 0..<count { counters.deadLetters.post(envelope, reason: .discarded) } }
            case .barrier(let body):
                barriers.append(body)
            }
            index = below
        }
        if action.top != 0 { nodes.free(top: action.top, bottom: bottom) }
        counters.discarded.add(action.count, ordering: .relaxed)
        batchWaiters.closeEnds()
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

    /// Calls `body` once the batch in progress, if any, has been counted, and what a close in
    /// progress discards; a shutdown waits for this after a close, so that what the close left
    /// of the batch (or another thread's close discarded) is counted and posted before the
    /// shutdown returns.
    func whenBatchCounted(_ body: @escaping @Sendable () -> Void) {
        batchWaiters.add(body)
    }

    /// Runs `transition` on the control state atomically and returns its action.
    func update<Action>(_ transition: (inout _MailboxState) -> Action) -> Action {
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

    /// Runs batches until the mailbox is idle or finished, or until a time slice is used up;
    /// used by queue-based executors.
    /// - Parameters:
    ///   - lingerNanoseconds: How long to keep looking after the last batch before going idle
    ///     (see ``_DrainPacing``); `0` goes idle as soon as nothing is pending.
    ///   - sliceNanoseconds: How long to run before handing the queue's thread back while a
    ///     stream piles up (the last batch held more than one event); ten times as long in any
    ///     case, so that a request-response exchange is not interrupted every slice. `nil` runs
    ///     until idle.
    ///   - cutsBatches: `true` makes the slice a hard limit: a batch is cut short between two
    ///     deliveries once the slice is used up, and the drain hands the thread back whatever
    ///     the batches held (the main queue, whose other work must not wait behind a backlog).
    /// - Returns: `true` when the slice ran out: the drain is still scheduled and the caller
    ///   must submit it again.
    func runUntilIdle(lingerNanoseconds: UInt64 = 0, sliceNanoseconds: UInt64? = nil, cutsBatches: Bool = false)
        -> Bool
    {
        var pacing = _DrainPacing(lingerNanoseconds: lingerNanoseconds)
        let start = sliceNanoseconds == nil ? 0 : DispatchTime._eventNanoseconds
        let deadline = cutsBatches ? sliceNanoseconds.map { start &+ $0 } : nil
        while true {
            switch runBatch(mayIdle: pacing.mayIdle, deadline: deadline) {
            case .ran:
                pacing.ran(batchCount: lastBatchCount)
                if let sliceNanoseconds {
                    let elapsed = DispatchTime._eventNanoseconds &- start
                    if elapsed >= sliceNanoseconds
                        && (cutsBatches || lastBatchCount > 1 || elapsed >= 10 * sliceNanoseconds)
                    {
                        return true
                    }
                }
            case .sliceEnded: return true
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

/// A mailbox as a delivery target: a delivery (``_Mailbox/deliver(_:for:)``) is a node pushed
/// onto the mailbox, which its drainer runs one at a time, in D3 order.
extension _Mailbox {
    var receiverDescription: String { executor.receiverDescription }
    var receiverName: String { executor.receiverName }
    var receiverKind: EventReceiverKind { executor.receiverKind }
}
