// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

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
final class _Mailbox: _DeliveryTarget, Sendable {
    // The fields that both sides read on every event come first, then the control word on a
    // cache line of its own (see ``_CacheLinePadding``).
    let nodes = _MailboxNodes()
    /// Set by ``close()``, so that the drainer stops between two deliveries of a batch.
    let isClosed = Atomic<Bool>(false)
    let drainer = _DrainerBuffers()
    /// Who waits for the batch in progress to be counted (see ``whenBatchCounted(_:)``).
    let batchWaiters = _BatchWaiters()
    /// Starts drains when the mailbox goes from idle to busy.
    let executor: _MailboxExecutor
    /// Where this mailbox reports what it delivered and discarded.
    let counters: _BusCounters
    /// The bound and overflow policy; `nil` for the default unbounded mailbox.
    let limit: _MailboxLimit?
    /// How many times a drain was requested (see ``_MailboxExecutor/wake(_:)``), for tests of
    /// the one-drainer rule.
    let drainRequests = _DrainRequestCount()

    /// How many deliveries may be pending before a push finds the mailbox full. A dropOldest
    /// mailbox takes every event: its drainer drops the oldest beyond the capacity.
    let capacity: Int
    /// The tag of a barrier's node (lanes of deliveries are 0...9).
    let barrierTag: UInt32 = 10
    /// Added to a node's tag (its lane) when the node below it holds another delivery of the
    /// same event, pushed with it (a bounded mailbox's group, ``deliverTogether(_:to:of:)``):
    /// `.dropOldest` keeps or drops an event's deliveries together.
    let sameEventBelow: UInt32 = 1 << 8

    private let beforeWord = _CacheLinePadding()
    /// The ``_MailboxState`` word: a compare-and-exchange by every push and by every take.
    let word = Atomic<UInt64>(_MailboxState().word)
    private let afterWord = _CacheLinePadding()
    /// Deliveries the drainer took and has not counted yet.
    let inProgress = Atomic<Int>(0)

    init(executor: _MailboxExecutor, counters: _BusCounters, limit: _MailboxLimit? = nil) {
        self.executor = executor
        self.counters = counters
        self.limit = limit
        self.capacity = limit.map { $0.dropsOldest ? .max : $0.capacity } ?? .max
        executor.queueDrain?.attach(self)
    }

    deinit {
        // Nothing drains any more: free what is still pending (events and subscriptions).
        var state = _MailboxState(word: word.load(ordering: .acquiring))
        let pending = state.close()
        var index = pending.top
        while index != 0 {
            let below = nodes.linked(below: index).below
            _ = nodes.takeUnrun(index)
            index = below
        }
    }

    // MARK: Enqueue

    /// Appends a delivery of `envelope` to `subscription`: the mailbox's one enqueue, and its
    /// ``_DeliveryTarget/deliver(_:for:)``. A closed mailbox counts it as discarded; a full one
    /// applies its overflow policy (Mailbox+Overflow.swift).
    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        let lane = (envelope.metadata.method == .stack ? 0 : 5) + UInt32(envelope.metadata.priority.rawValue)
        // The node's hold on the subscription (see ``_MailboxItem/delivery``).
        let hold = Unmanaged.passRetained(subscription)
        guard let (node, link) = nodes.take(storing: .delivery(envelope, hold)) else {
            hold.release()
            return drop(envelope)  // every node index in use: 2³² − 1 deliveries pending
        }
        switch tryPush(node, link: link, lane: lane, capacity: capacity, deliveries: 1) {
        case .pushed(let wake):
            // The event's type is looked up only for a wake: the main queue's watch names it.
            if wake { executor.wake(self, for: type(of: envelope.event)) }
        case .full: _ = overflow(_UnpushedNodes(node), lane: lane, eventType: type(of: envelope.event))
        case .refused: discard(_UnpushedNodes(node))
        }
    }

    /// Appends one delivery of `envelope` for each of `subscriptions`, to run in their order:
    /// one node for all of them in an unbounded mailbox; in a bounded one, whose capacity and
    /// overflow policy count deliveries, a node each, pushed together
    /// (``deliverTogether(_:to:of:)``, Mailbox+Overflow.swift).
    func deliver(_ envelope: _EventEnvelope, to run: Range<Int>, of route: _Route) {
        guard limit == nil else { return deliverTogether(envelope, to: run, of: route) }
        let lane = (envelope.metadata.method == .stack ? 0 : 5) + UInt32(envelope.metadata.priority.rawValue)
        // The node's hold on the route, which holds the subscriptions (see ``_MailboxItem/deliveries``).
        let hold = Unmanaged.passRetained(route)
        guard let (node, link) = nodes.take(storing: .deliveries(envelope, hold, _RouteRun(run))) else {
            hold.release()
            for _ in run { drop(envelope) }
            return
        }
        switch tryPush(node, link: link, lane: lane, capacity: .max, deliveries: run.count) {
        case .pushed(let wake): if wake { executor.wake(self, for: type(of: envelope.event)) }
        case .full, .refused: discard(_UnpushedNodes(node))
        }
    }

    /// What ``tryPush(_:link:lane:capacity:deliveries:)`` did.
    enum PushResult: Equatable {
        /// Pushed; the drainer was idle and must be woken when `wake`.
        case pushed(wake: Bool)
        /// Not pushed; the caller still owns the node.
        case full
        /// Not pushed: the mailbox is closed; the caller still owns the node.
        case refused
    }

    /// Pushes `node`, which holds `deliveries` deliveries, with one compare-and-exchange (again
    /// if another thread changed the word first); the caller wakes the drainer when the result
    /// says it was idle.
    @inline(__always)
    func tryPush(
        _ node: UInt32, link: UnsafeMutablePointer<Atomic<UInt64>>, lane: UInt32, capacity: Int, deliveries: Int
    ) -> PushResult {
        var current = word.load(ordering: .relaxed)
        while true {
            var next = current
            switch _MailboxState.push(node, deliveries: deliveries, capacity: capacity, onto: &next) {
            case .pushed(let below, let wake):
                // The link keeps the lane beside the node below: the drainer sorts without reading the item.
                link.pointee.store(UInt64(lane) << 32 | UInt64(below), ordering: .relaxed)
                // Acquiring too: a push that finds the drainer parked wakes a drain that may run on
                // another thread, which must see what the parked drain wrote (its buffers); the
                // park released them (`update`), and this acquire passes them on.
                let (exchanged, seen) = word.compareExchange(
                    expected: current, desired: next, ordering: .acquiringAndReleasing)
                guard exchanged else {
                    current = seen
                    continue
                }
                return .pushed(wake: wake)
            case .full:
                return .full
            case .refused:
                return .refused
            }
        }
    }

    // MARK: Draining

    /// The outcome of one step of the drainer.
    enum Step {
        case ran
        /// The deadline passed in the middle of a batch: the rest of it runs at the next call.
        case sliceEnded
        case empty
        case idle
        case finished
    }

    /// Takes the pending batch and handles it, or resumes the batch a deadline cut short. Only
    /// the mailbox's single drainer calls this: a drain is started only by the push that found the
    /// mailbox idle, and it ends by parking.
    /// - Parameter deadline: An uptime in nanoseconds after which the drainer stops between two
    ///   deliveries (after at least one) and returns ``Step/sliceEnded``; the batch stays taken,
    ///   so events that arrive meanwhile still wait for the next batch and the order is kept.
    func runBatch(mayIdle: Bool, deadline: UInt64? = nil) -> Step {
        let buffers = drainer
        if !buffers.isCutShort {
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
            buffers.bottom = sortIntoLanes(top: top, buffers)
            buffers.top = top
            buffers.batchCount = count - buffers.droppedOldest
            buffers.remaining = buffers.batchCount
            buffers.lastDiscarded = 0
            buffers.resumeLane = 0
            buffers.resumePosition = 0
        }
        var tally = _DeliveryTally()
        var ranOne = false
        var lane = buffers.resumeLane
        var position = buffers.resumePosition
        while lane < 10 {
            let laneNodes = buffers.lanes.nodes(lane)
            let count = laneNodes.count
            while position < count {
                if let deadline, ranOne, DispatchTime._eventNanoseconds >= deadline {
                    (buffers.resumeLane, buffers.resumePosition, buffers.isCutShort) = (lane, position, true)
                    counters.record(tally)
                    return .sliceEnded
                }
                // Stacked lanes run newest first, queued ones oldest first; the stack gave newest first.
                let node = laneNodes[lane < 5 ? position : count - 1 - position]
                position += 1
                ranOne = true
                // The delivery in `node`, unless the mailbox was closed meanwhile (written out here,
                // not called: one function fewer on the path a newcomer reads, `.ci/dispatch-path`).
                switch nodes.slot(node).item.move() {
                case .delivery(let envelope, let hold):
                    // Released with the batch's other holds once the batch has run.
                    buffers.holds.append(hold)
                    guard !isClosed.load(ordering: .relaxed) else {
                        discardClosed(envelope)
                        continue
                    }
                    buffers.remaining -= 1
                    // Unretained: the node's hold keeps it until the batch has run.
                    let outcome = hold._withUnsafeGuaranteedRef { $0.deliver(envelope) }
                    if outcome == .delivered {
                        tally.delivered += 1
                    } else {
                        tally.record(outcome)
                        counters.noteUndelivered(outcome, envelope)
                    }
                case .deliveries(let envelope, let hold, let run):
                    buffers.holds.append(hold)
                    // Unretained: the node's hold keeps the route, and the route its subscriptions.
                    hold._withUnsafeGuaranteedRef { route in
                        route.forEach(in: run.range) { self.run(envelope, for: $0, &tally) }
                    }
                case .barrier:
                    break
                }
            }
            buffers.lanes.removeAll(lane)
            lane += 1
            position = 0
        }
        buffers.isCutShort = false
        if buffers.lastDiscarded > 0 { counters.discarded.wrappingAdd(buffers.lastDiscarded, ordering: .relaxed) }
        counters.record(tally)
        buffers.holds.releaseAll()
        nodes.free(top: buffers.top, bottom: buffers.bottom)
        inProgress.store(0, ordering: .relaxed)
        batchWaiters.batchEnds()
        let barriers = buffers.barriers
        buffers.barriers.removeAll(keepingCapacity: true)
        for barrier in barriers.reversed() { barrier() }
        return .ran
    }

    /// Puts the nodes of the stack from `top` into the drainer's lanes (barriers aside), and
    /// returns the bottom node; a `.dropOldest` mailbox also drops what its capacity leaves out
    /// (``sortIntoLanesDroppingOldest(top:capacity:_:)``, Mailbox+Overflow.swift).
    private func sortIntoLanes(top: UInt32, _ buffers: _DrainerBuffers) -> UInt32 {
        if let limit, limit.dropsOldest {
            return sortIntoLanesDroppingOldest(top: top, capacity: limit.capacity, buffers)
        }
        buffers.droppedOldest = 0
        var index = top
        var bottom = top
        while index != 0 {
            bottom = index
            let link = nodes.slot(index).link.pointee.load(ordering: .relaxed)
            let (below, tag) = (UInt32(truncatingIfNeeded: link), UInt32(truncatingIfNeeded: link >> 32))
            if tag == barrierTag {
                if case .barrier(let body) = nodes.takeUnrun(index) { buffers.barriers.append(body) }
            } else {
                buffers.lanes.append(index, to: Int(tag & ~sameEventBelow))
            }
            index = below
        }
        return bottom
    }

    /// Runs one delivery of a node for several subscriptions, unless the mailbox was closed
    /// meanwhile, and tallies its outcome.
    private func run(_ envelope: _EventEnvelope, for subscription: _Subscription, _ tally: inout _DeliveryTally) {
        guard !isClosed.load(ordering: .relaxed) else { return discardClosed(envelope) }
        drainer.remaining -= 1
        let outcome = subscription.deliver(envelope)
        if outcome == .delivered {
            tally.delivered += 1
        } else {
            tally.record(outcome)
            counters.noteUndelivered(outcome, envelope)
        }
    }

    /// A delivery the drainer found after the mailbox was closed: counted as discarded.
    private func discardClosed(_ envelope: _EventEnvelope) {
        drainer.lastDiscarded += 1
        if counters.deadLetters.isObserved { counters.deadLetters.post(envelope, reason: .discarded) }
    }
}

/// The per-event steps of a mailbox's node storage (``_MailboxNodes``, MailboxNodes.swift):
/// addressing a node and taking a free one.
extension _MailboxNodes {
    // MARK: Owning a node

    /// The link and the item slot of node `index`.
    @inline(__always)
    func slot(_ index: UInt32) -> (link: UnsafeMutablePointer<Atomic<UInt64>>, item: UnsafeMutablePointer<_MailboxItem>)
    {
        let position = Int(index) - 1 + firstChunkSize
        let chunk = (Int.bitWidth - 1 - position.leadingZeroBitCount) - firstChunkShift
        let offset = position - (firstChunkSize << chunk)
        var address = chunks[chunk].load(ordering: .acquiring)
        if address == 0 { address = UInt(bitPattern: allocate(chunk)) }
        // Valid: a published chunk lives as long as the mailbox; its links and items were bound when it was made.
        let base = UnsafeMutableRawPointer(bitPattern: address).unsafelyUnwrapped
        return (
            base.assumingMemoryBound(to: Atomic<UInt64>.self) + offset,
            (base + itemOffsets[chunk]).assumingMemoryBound(to: _MailboxItem.self) + offset
        )
    }

    /// Takes a free node (a new one when none is free) and stores `item` in it; the caller owns
    /// the node, and gets its link to push it. `nil` when the mailbox has used every index
    /// (2³² − 1 nodes).
    @inline(__always)
    func take(storing item: consuming _MailboxItem) -> (index: UInt32, link: UnsafeMutablePointer<Atomic<UInt64>>)? {
        var head = freeHead.load(ordering: .acquiring)
        var index: UInt32
        while true {
            index = UInt32(truncatingIfNeeded: head)
            if index == 0 {
                let fresh = self.fresh.wrappingAdd(1, ordering: .relaxed).oldValue
                guard fresh <= UInt64(UInt32.max) else { return nil }
                index = UInt32(fresh)
                break
            }
            let below = UInt32(truncatingIfNeeded: slot(index).link.pointee.load(ordering: .relaxed))
            let next = (head >> 32 &+ 1) << 32 | UInt64(below)
            let (exchanged, current) = freeHead.compareExchange(expected: head, desired: next, ordering: .acquiring)
            if exchanged { break }
            head = current
        }
        let slot = slot(index)
        slot.item.initialize(to: item)
        return (index, slot.link)
    }
}

// The drainer's two per-event steps on its buffers (``_DrainerLanes``, ``_DrainerHolds``, in
// DrainerBuffers.swift), kept beside the drain loop that calls them.

extension _DrainerLanes {
    /// Appends `node` to `lane`, doubling the lane's memory when it is full.
    @inline(__always)
    mutating func append(_ node: UInt32, to lane: Int) {
        let count = counts[lane]
        if _slowPath(count == capacities[lane]) { grow(lane) }
        storage[lane][count] = node
        counts[lane] = count + 1
    }
}

extension _DrainerHolds {
    /// Keeps `hold` (a subscription's or a route's) until ``releaseAll()``.
    @inline(__always)
    mutating func append<Object: AnyObject>(_ hold: Unmanaged<Object>) {
        if _slowPath(count == capacity) { grow() }
        // The same object, as any object: released by ``releaseAll()`` without knowing its type.
        (storage + count).initialize(to: Unmanaged.fromOpaque(hold.toOpaque()))
        count += 1
    }
}
