// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// The bound of one mailbox, with what its overflow policy needs: where blocked producers wait,
/// what it dropped, and whom to tell when a dispatch fails.
final class _MailboxLimit: Sendable {
    let capacity: Int
    let whenFull: EventOverflowPolicy
    /// The receiver's name, for ``EventDrivenError/mailboxFull(receiver:eventType:)``.
    let receiver: String
    /// Events this mailbox's policy dropped.
    let dropped = Atomic<Int>(0)
    private let space = DispatchSemaphore(value: 0)
    private weak let bus: EventBus?

    init?(_ policy: EventMailboxPolicy, receiver: String, bus: EventBus) {
        guard case .bounded(let capacity, let whenFull) = policy else { return nil }
        precondition(capacity >= 1, "a bounded mailbox needs a capacity of at least 1")
        self.capacity = capacity
        self.whenFull = whenFull
        self.receiver = receiver
        self.bus = bus
    }

    /// Producers counted as waiting for space (they may be about to wait, or retrying).
    private let blocked = Atomic<Int>(0)

    /// `true` for ``EventOverflowPolicy/dropOldest``: the mailbox takes every event, and its
    /// drainer drops the oldest beyond the capacity when it takes them.
    var dropsOldest: Bool {
        if case .dropOldest = whenFull { return true }
        return false
    }

    /// Producers waiting for space in a full blocking mailbox.
    var blockedProducers: Int { blocked.load(ordering: .relaxed) }

    /// Wakes every producer counted as blocked; each looks for space again. Called by the
    /// drainer after each take, and by a close.
    @inline(__always)
    func wakeBlockedProducers() {
        let count = blocked.load(ordering: .sequentiallyConsistent)
        for _ in 0..<count { space.signal() }
    }

    /// Counts this producer as blocked, before its last look for space: a take that comes
    /// after that look sees it and wakes it.
    func beginBlocking() { blocked.add(1, ordering: .sequentiallyConsistent) }

    /// Stops counting this producer as blocked.
    func endBlocking() { blocked.subtract(1, ordering: .sequentiallyConsistent) }

    /// Waits for the drainer to make room; `false` when `deadline` passed first.
    func waitForSpace(until deadline: DispatchTime) -> Bool {
        space.wait(timeout: deadline) == .success
    }

    /// Tells whoever dispatched that the event did not reach this receiver.
    func reportRefused(_ envelope: _EventEnvelope) {
        let error = EventDrivenError.mailboxFull(
            receiver: receiver, eventType: String(reflecting: type(of: envelope.event)))
        if let failures = _DispatchFailures.current {
            failures.record(error)
        } else {
            bus?.report(error)
        }
    }
}

extension _Mailbox {
    /// What a full mailbox does with the delivery in `node` (of `lane`), which was not pushed:
    /// drop it, refuse it, or, for ``EventOverflowPolicy/blockProducer(timeout:)``, wait for
    /// the drainer to make room. Cold path.
    /// - Returns: `true` when the delivery was accepted.
    func overflow(_ node: UInt32, lane: UInt32, eventType: any Eventable.Type) -> Bool {
        guard let limit else { return dropNode(node, refused: true) }
        switch limit.whenFull {
        case .dropNewest, .dropOldest:
            return dropNode(node, refused: false)
        case .failDispatch:
            return dropNode(node, refused: true)
        case .blockProducer(let timeout):
            // A handler dispatching to its own receiver would wait for itself, and so would main-queue
            // code dispatching to a receiver that drains on the main queue: accept it over capacity.
            if _ReceiverContext.current?.mailbox === self
                || (executor.drainsOnMainQueue && _MainQueueIdentity.isCurrent)
            {
                switch tryPush(node, link: nodes.slot(node).link, lane: lane, capacity: .max, deliveries: 1) {
                case .pushed(let wake):
                    if wake { executor.wake(self, for: eventType) }
                    return true
                case .full, .refused:
                    discard(node)
                    return false
                }
            }
            return waitForSpace(node, lane: lane, eventType: eventType, limit: limit, timeout: timeout)
        }
    }

    private func waitForSpace(
        _ node: UInt32, lane: UInt32, eventType: any Eventable.Type, limit: _MailboxLimit, timeout: Duration?
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
            switch tryPush(node, link: nodes.slot(node).link, lane: lane, capacity: limit.capacity, deliveries: 1) {
            case .pushed(let wake):
                if wake { executor.wake(self, for: eventType) }
                return true
            case .refused:
                discard(node)
                return false
            case .full:
                guard limit.waitForSpace(until: deadline) else { return dropNode(node, refused: true) }
            }
        }
    }

    /// Frees `node` and counts its delivery as dropped by the overflow policy; `refused`
    /// reports the refusal to whoever dispatched.
    private func dropNode(_ node: UInt32, refused: Bool) -> Bool {
        guard case .deliveries(let envelope, _) = unpush(node) else { return false }
        drop(envelope)
        if refused { limit?.reportRefused(envelope) }
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
    func discard(_ node: UInt32) {
        let (envelope, count) = unpush(node).deliveries
        guard let envelope else { return }
        counters.discarded.add(count, ordering: .relaxed)
        for _ in 0..<count { counters.deadLetters.post(envelope, reason: .discarded) }
    }

    /// Takes back a node that was not pushed, and frees it.
    func unpush(_ node: UInt32) -> _UnrunItem {
        let item = nodes.takeUnrun(node)
        nodes.free(top: node, bottom: node)
        return item
    }
}
