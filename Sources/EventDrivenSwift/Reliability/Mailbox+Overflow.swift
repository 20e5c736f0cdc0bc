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

    func configure(_ state: inout _MailboxState) {
        state.capacity = capacity
        if case .blockProducer = whenFull { state.blocksWhenFull = true }
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

extension _MailboxState {
    /// Forgets every blocked producer (the mailbox closed); returns how many to wake.
    mutating func releaseBlockedProducers() -> Int {
        defer {
            blockedProducers = 0
            producersToWake = 0
        }
        return blockedProducers + producersToWake
    }
}

extension _Mailbox {
    /// Applies the overflow policy to `entry`, which found the mailbox full. Cold path.
    /// - Returns: `true` when `entry` was accepted after all.
    func overflow(_ entry: _MailboxEntry) -> Bool {
        guard let limit else { return false }
        switch limit.whenFull {
        case .dropNewest:
            drop(entry.envelope, limit)
            return false
        case .failDispatch:
            drop(entry.envelope, limit)
            limit.reportRefused(entry.envelope)
            return false
        case .dropOldest:
            let (action, oldest) = state.withLock { state -> (_MailboxState.EnqueueAction, _MailboxEntry?) in
                let oldest = state.pending.count >= state.capacity ? state.pending.removeOldest() : nil
                if let oldest { state.pendingDeliveries -= oldest.recipient.deliveryCount }
                return (state.lifecycle == .open ? state.append(entry) : .rejected, oldest)
            }
            if let oldest { drop(oldest.envelope, limit) }
            return finish(action, entry)
        case .blockProducer(let timeout):
            return block(entry, limit, timeout: timeout)
        }
    }

    private func block(_ entry: _MailboxEntry, _ limit: _MailboxLimit, timeout: Duration?) -> Bool {
        // A handler dispatching to its own receiver would wait for itself: accept it over capacity.
        if _ReceiverContext.current?.mailbox === self {
            let action = state.withLock { state in
                state.blockedProducers = max(0, state.blockedProducers - 1)
                return state.lifecycle == .open ? state.append(entry) : .rejected
            }
            return finish(action, entry)
        }
        let deadline: DispatchTime =
            if let timeout {
                .now() + .nanoseconds(Int(min(timeout / .nanoseconds(1), Double(Int.max / 2))))
            } else {
                .distantFuture
            }
        while true {
            guard limit.waitForSpace(until: deadline) else {
                drop(entry.envelope, limit)
                limit.reportRefused(entry.envelope)
                return false
            }
            // Counted as blocked again if it is still full, under the same lock as the check.
            let action = state.withLock { $0.enqueue(entry) }
            if action != .full { return finish(action, entry) }
        }
    }

    private func finish(_ action: _MailboxState.EnqueueAction, _ entry: _MailboxEntry) -> Bool {
        switch action {
        case .none, .full: return true
        case .wake:
            executor.wake(self)
            return true
        case .rejected:
            counters.discarded.add(1, ordering: .relaxed)
            counters.deadLetters.post(entry.envelope, reason: .discarded)
            return false
        }
    }

    private func drop(_ envelope: _EventEnvelope, _ limit: _MailboxLimit) {
        limit.dropped.add(1, ordering: .relaxed)
        counters.dropped.add(1, ordering: .relaxed)
        counters.deadLetters.post(envelope, reason: .dropped)
    }
}

/// The refusals collected while ``EventBus/tryDispatch(_:method:priority:)`` dispatches.
final class _DispatchFailures: Sendable {
    private let errors = LockedValue<[EventDrivenError]>([])

    func record(_ error: EventDrivenError) { errors.withLock { $0.append(error) } }
    var first: EventDrivenError? { errors.withLock { $0.first } }

    @TaskLocal static var current: _DispatchFailures?
}

extension EventBus {
    /// Dispatches `event` like ``dispatch(_:method:priority:)``, and throws when a receiver with a
    /// ``EventOverflowPolicy/failDispatch`` (or a timed-out ``EventOverflowPolicy/blockProducer(timeout:)``)
    /// mailbox refused it because it was full.
    ///
    /// The other receivers still get the event: the error says that at least one did not.
    /// - Throws: ``EventDrivenError/mailboxFull(receiver:eventType:)``, or
    ///   ``EventDrivenError/busShutDown(bus:eventType:)`` after shutdown.
    public func tryDispatch<E: Eventable>(
        _ event: E, method: EventDispatchMethod = .queue, priority: EventPriority = .normal
    ) throws(EventDrivenError) {
        if isShutDown {
            dispatch(event, method: method, priority: priority)
            throw .busShutDown(bus: label, eventType: String(reflecting: E.self))
        }
        let failures = _DispatchFailures()
        _DispatchFailures.$current.withValue(failures) {
            dispatch(event, method: method, priority: priority)
        }
        if let error = failures.first { throw error }
    }
}

extension EventThread {
    /// How many events this thread's bounded mailbox dropped (see ``mailboxPolicy``).
    public var droppedEventCount: Int { mailbox.limit?.dropped.load(ordering: .relaxed) ?? 0 }
}

extension _MailboxLanes where Entry == _MailboxEntry {
    /// Removes the entry dispatched earliest.
    mutating func removeOldest() -> _MailboxEntry? {
        removeOldest { $0.envelope.metadata.dispatchTime < $1.envelope.metadata.dispatchTime }
    }
}
