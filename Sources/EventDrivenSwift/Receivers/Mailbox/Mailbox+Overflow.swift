// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// Nodes one producer took and linked, from `head` down to `tail`, and has not pushed yet: one
/// delivery, or the group a bounded mailbox takes together (``_Mailbox/deliverTogether(_:to:of:)``).
struct _UnpushedNodes {
    let head: UInt32
    let tail: UInt32
    /// How many deliveries the nodes hold.
    let deliveries: Int

    /// The one node `node`, holding one delivery.
    init(_ node: UInt32) {
        (head, tail, deliveries) = (node, node, 1)
    }

    init(head: UInt32, tail: UInt32, deliveries: Int) {
        (self.head, self.tail, self.deliveries) = (head, tail, deliveries)
    }
}

extension _Mailbox {
    // MARK: A bounded mailbox's group

    /// ``deliver(_:to:of:)`` in a bounded mailbox, whose capacity and overflow policy count
    /// deliveries: a node per delivery, all pushed with one compare-and-exchange, so that the
    /// group lands in one batch and runs in registration order. The nodes are linked in the
    /// order the batch runs them: a stacked lane runs its nodes as the stack gives them (top
    /// first), a queued lane from the bottom up. A mailbox below its capacity takes the whole
    /// group (it may then hold up to `run.count − 1` deliveries more than its capacity); a full
    /// one applies its policy to the whole group.
    func deliverTogether(_ envelope: _EventEnvelope, to run: Range<Int>, of route: _Route) {
        let stacked = envelope.metadata.method == .stack
        let lane = (stacked ? 0 : 5) + UInt32(envelope.metadata.priority.rawValue)
        var (head, tail, deliveries): (UInt32, UInt32, Int) = (0, 0, 0)
        route.forEach(in: run) { subscription in
            // Retained for the node; released by the drainer once the delivery ran, or just below if no node is free.
            let hold = Unmanaged.passRetained(subscription)
            guard let (node, link) = nodes.take(storing: .delivery(envelope, hold)) else {
                hold.release()
                return drop(envelope)  // every node index in use: 2³² − 1 deliveries pending
            }
            if deliveries == 0 {
                (head, tail) = (node, node)
            } else if stacked {
                // Below the previous one: the top of the group is the first listener's.
                nodes.setLink(tail, to: node, tag: lane | sameEventBelow)
                tail = node
            } else {
                // Above the previous one: the bottom of the group is the first listener's.
                link.pointee.store(UInt64(lane | sameEventBelow) << 32 | UInt64(head), ordering: .relaxed)
                head = node
            }
            deliveries += 1
        }
        guard deliveries > 0 else { return }
        let group = _UnpushedNodes(head: head, tail: tail, deliveries: deliveries)
        switch tryPush(group, lane: lane, capacity: capacity) {
        case .pushed(let wake): if wake { executor.wake(self, for: type(of: envelope.event)) }
        case .full: _ = overflow(group, lane: lane, eventType: type(of: envelope.event))
        case .refused: discard(group)
        }
    }

    /// The drainer's sorting of a `.dropOldest` mailbox's stack from `top` into its lanes: it
    /// keeps the newest events while fewer than `capacity` of their deliveries are kept, each
    /// event's deliveries together (as a push takes them: an event that finds room is taken
    /// whole; a group is marked by ``sameEventBelow``), and drops the older events. Returns the
    /// bottom node.
    func sortIntoLanesDroppingOldest(top: UInt32, capacity: Int, _ buffers: _DrainerBuffers) -> UInt32 {
        var dropped: [_EventEnvelope] = []
        defer {
            // Found newest first: count them oldest first.
            for envelope in dropped.reversed() { drop(envelope) }
        }
        var kept = 0
        var keeping = true
        var startsEvent = true
        var index = top
        var bottom = top
        while index != 0 {
            bottom = index
            let link = nodes.slot(index).link.pointee.load(ordering: .relaxed)
            let (below, tag) = (UInt32(truncatingIfNeeded: link), UInt32(truncatingIfNeeded: link >> 32))
            if tag == barrierTag {
                if case .barrier(let body) = nodes.takeUnrun(index) { buffers.barriers.append(body) }
            } else {
                if startsEvent { keeping = kept < capacity }
                startsEvent = tag & sameEventBelow == 0
                if keeping {
                    kept += 1
                    buffers.lanes.append(index, to: Int(tag & ~sameEventBelow))
                } else if case .deliveries(let envelope, let count) = nodes.takeUnrun(index) {
                    // The oldest of a full dropOldest mailbox: made room for newer ones.
                    dropped.append(contentsOf: repeatElement(envelope, count: count))
                }
            }
            index = below
        }
        buffers.droppedOldest = dropped.count
        return bottom
    }

    /// ``tryPush(_:link:lane:capacity:deliveries:)`` for nodes that were not pushed.
    func tryPush(_ unpushed: _UnpushedNodes, lane: UInt32, capacity: Int) -> PushResult {
        tryPush(
            unpushed.head, link: nodes.slot(unpushed.tail).link, lane: lane, capacity: capacity,
            deliveries: unpushed.deliveries)
    }

    // MARK: A full mailbox

    /// What a full mailbox does with the deliveries in `unpushed` (of `lane`): drop them,
    /// refuse them, or, for ``EventOverflowPolicy/blockProducer(timeout:)``, wait for the drainer
    /// to make room. Cold path.
    /// - Returns: `true` when the deliveries were accepted.
    func overflow(_ unpushed: _UnpushedNodes, lane: UInt32, eventType: any Eventable.Type) -> Bool {
        guard let limit else { return drop(unpushed, refused: true) }
        switch limit.whenFull {
        case .dropNewest, .dropOldest:
            return drop(unpushed, refused: false)
        case .failDispatch:
            return drop(unpushed, refused: true)
        case .blockProducer(let timeout):
            // A handler dispatching to its own receiver (or, in a pool, to another thread of it, which
            // may be waiting for this one) would wait for itself, and so would main-queue code
            // dispatching to a receiver that drains on the main queue: accept it over capacity.
            if limit.isOwnReceiver(self) || limit.isReleased
                || (executor.drainsOnMainQueue && _MainQueueIdentity.isCurrent)
            {
                switch tryPush(unpushed, lane: lane, capacity: .max) {
                case .pushed(let wake):
                    if wake { executor.wake(self, for: eventType) }
                    return true
                case .full, .refused:
                    discard(unpushed)
                    return false
                }
            }
            return waitForSpace(unpushed, lane: lane, eventType: eventType, limit: limit, timeout: timeout)
        }
    }

    private func waitForSpace(
        _ unpushed: _UnpushedNodes, lane: UInt32, eventType: any Eventable.Type, limit: _MailboxLimit,
        timeout: Duration?
    ) -> Bool {
        let deadline: DispatchTime =
            if let timeout {
                .now() + .nanoseconds(Int(min(timeout / .nanoseconds(1), Double(Int.max / 2))))
            } else {
                .distantFuture
            }
        limit.beginBlocking()
        defer { limit.endBlocking() }
        while true {
            switch tryPush(unpushed, lane: lane, capacity: limit.isReleased ? .max : limit.capacity) {
            case .pushed(let wake):
                if wake { executor.wake(self, for: eventType) }
                return true
            case .refused:
                discard(unpushed)
                return false
            case .full:
                guard limit.waitForSpace(until: deadline) else { return drop(unpushed, refused: true) }
            }
        }
    }

    /// Frees the nodes and counts their deliveries as dropped by the overflow policy; `refused`
    /// reports each refusal to whoever dispatched.
    private func drop(_ unpushed: _UnpushedNodes, refused: Bool) -> Bool {
        unpush(unpushed) { item in
            guard case .deliveries(let envelope, let count) = item else { return }
            for _ in 0..<count {
                drop(envelope)
                if refused { limit?.reportRefused(envelope) }
            }
        }
        return false
    }

    /// Counts an event the overflow policy dropped, and posts it as a dead letter.
    func drop(_ envelope: _EventEnvelope) {
        limit?.dropped.add(1, ordering: .relaxed)
        counters.dropped.add(1, ordering: .relaxed)
        counters.deadLetters.post(envelope, reason: .dropped)
    }
}

extension EventThread {
    /// How many events this thread's bounded mailbox dropped (see ``mailboxPolicy``).
    public var droppedEventCount: Int { mailbox.limit?.dropped.load(ordering: .relaxed) ?? 0 }
}

extension _Mailbox {
    /// Counts the deliveries the closed mailbox did not accept as discarded.
    func discard(_ unpushed: _UnpushedNodes) {
        unpush(unpushed) { item in
            guard case .deliveries(let envelope, let count) = item else { return }
            counters.discarded.add(count, ordering: .relaxed)
            for _ in 0..<count { counters.deadLetters.post(envelope, reason: .discarded) }
        }
    }

    /// Takes back nodes that were not pushed, passing each one's item to `body` from the head
    /// down, and frees them.
    func unpush(_ unpushed: _UnpushedNodes, _ body: (_UnrunItem) -> Void = { _ in }) {
        var node = unpushed.head
        while true {
            let below = nodes.linked(below: node).below
            body(nodes.takeUnrun(node))
            if node == unpushed.tail { break }
            node = below
        }
        nodes.free(top: unpushed.head, bottom: unpushed.tail)
    }
}
