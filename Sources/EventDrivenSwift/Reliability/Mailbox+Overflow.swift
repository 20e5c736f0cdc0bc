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

    /// Wakes `count` blocked producers; each looks for space again.
    func wake(_ count: Int) {
        for _ in 0..<count { space.signal() }
    }

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
    /// Waits for the drainer to make room for `entry`, which found the mailbox full under
    /// ``EventOverflowPolicy/blockProducer(timeout:)``, then enqueues it; drops it once the
    /// timeout has passed. Cold path.
    /// - Returns: `true` when `entry` was accepted.
    func waitForSpace(_ entry: _MailboxEntry) -> Bool {
        guard let limit, case .blockProducer(let timeout) = limit.whenFull else {
            preconditionFailure("only a mailbox whose producers block asks one to wait")
        }
        // A handler dispatching to its own receiver would wait for itself: accept it over capacity.
        if _ReceiverContext.current?.mailbox === self {
            return finishEnqueue(enqueueOverCapacity(entry))
        }
        let deadline: DispatchTime =
            if let timeout {
                .now() + .nanoseconds(Int(min(timeout / .nanoseconds(1), Double(Int.max / 2))))
            } else {
                .distantFuture
            }
        while true {
            // A producer that gives up stays counted until the next take, whose wake then only
            // sends another waiting producer to look once more.
            guard limit.waitForSpace(until: deadline) else {
                drop(entry.envelope)
                limit.reportRefused(entry.envelope)
                return false
            }
            let action = append({ entry.envelope }, holdsInlineEvent: entry.holdsInlineEvent, for: entry.recipient)
            // Still full: counted as blocked again, under the same lock as the check.
            if case .blockProducer = action { continue }
            return finishEnqueue(action)
        }
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
