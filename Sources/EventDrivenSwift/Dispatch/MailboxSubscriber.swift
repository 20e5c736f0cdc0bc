/// One subscription of a route that delivers into an unbounded mailbox, held unretained: the
/// route's `subscriptions` keeps the subscription alive, and the subscription its mailbox.
///
/// Used only while the registry lock is held, which keeps the route, and so both objects, alive.
struct _MailboxSubscriber: Sendable {
    let subscription: Unmanaged<_Subscription>
    let mailbox: Unmanaged<_Mailbox>

    /// Appends an entry for the envelope `makeEnvelope` returns to the mailbox; what must be
    /// done after the registry lock is released (a wake, a refused entry) goes to `followUps`.
    /// `holdsInlineEvent` marks the entry as holding an inline event (see ``_MailboxEntry``).
    ///
    /// The envelope is made under the mailbox's lock, straight into the entry that moves into
    /// the lane, so that it is neither copied nor destroyed on the way.
    @inline(__always)
    func enqueue(
        _ makeEnvelope: () -> _EventEnvelope, holdsInlineEvent: Bool, followUps: inout [_EnqueueFollowUp]
    ) {
        mailbox._withUnsafeGuaranteedRef { mailbox in
            mailbox.state.withLock { state in
                _MailboxSubscriber.append(
                    makeEnvelope, holdsInlineEvent: holdsInlineEvent, for: subscription, to: &state, of: mailbox,
                    followUps: &followUps)
            }
        }
    }

    /// Appends an entry for `makeEnvelope()` and `subscription` to `state`, the state of
    /// `mailbox`, whose lock the caller holds.
    @inline(__always)
    static func append(
        _ makeEnvelope: () -> _EventEnvelope, holdsInlineEvent: Bool, for subscription: Unmanaged<_Subscription>,
        to state: inout _MailboxState, of mailbox: _Mailbox, followUps: inout [_EnqueueFollowUp]
    ) {
        if let refusal = state.refusal() {
            let entry = _MailboxEntry(
                envelope: makeEnvelope(), unretainedSubscription: subscription, holdsInlineEvent: holdsInlineEvent)
            followUps.append(_EnqueueFollowUp(mailbox: mailbox, action: refusal, entry: entry))
        } else if state.append(
            _MailboxEntry(
                envelope: makeEnvelope(), unretainedSubscription: subscription, holdsInlineEvent: holdsInlineEvent))
            == .wake
        {
            followUps.append(_EnqueueFollowUp(mailbox: mailbox, action: .wake, entry: nil))
        }
    }
}

extension [_MailboxSubscriber] {
    /// Appends an entry for each subscriber to its mailbox, each with the envelope
    /// `makeEnvelope` returns for it. A stacked event (`method`) goes to them in reverse,
    /// because each receiver runs its stacked entries newest first: a receiver with several
    /// callbacks for the type then still runs them in registration order.
    ///
    /// Consecutive subscribers that share a mailbox (several listeners on a bus's listener
    /// thread, several callbacks of one EventThread) get their entries under one lock.
    @inline(__always)
    func enqueue(
        method: EventDispatchMethod, holdsInlineEvent: Bool, _ makeEnvelope: () -> _EventEnvelope,
        followUps: inout [_EnqueueFollowUp]
    ) {
        if count == 1 {
            self[0].enqueue(makeEnvelope, holdsInlineEvent: holdsInlineEvent, followUps: &followUps)
            return
        }
        let isStacked = method == .stack
        let step = isStacked ? -1 : 1
        var start = isStacked ? count - 1 : 0
        while indices.contains(start) {
            let mailbox = self[start].mailbox
            var end = start + step
            while indices.contains(end) && self[end].mailbox.toOpaque() == mailbox.toOpaque() { end += step }
            if end == start + step {
                self[start].enqueue(makeEnvelope, holdsInlineEvent: holdsInlineEvent, followUps: &followUps)
            } else {
                enqueue(
                    makeEnvelope, holdsInlineEvent: holdsInlineEvent, from: start, to: end, step: step,
                    into: mailbox, followUps: &followUps)
            }
            start = end
        }
    }

    /// Appends an entry for the subscribers `start`, `start + step`, … before `end`, which all
    /// deliver into `mailbox`, under one hold of its lock.
    private func enqueue(
        _ makeEnvelope: () -> _EventEnvelope, holdsInlineEvent: Bool, from start: Int, to end: Int, step: Int,
        into mailbox: Unmanaged<_Mailbox>,
        followUps: inout [_EnqueueFollowUp]
    ) {
        mailbox._withUnsafeGuaranteedRef { mailbox in
            mailbox.state.withLock { state in
                var index = start
                while index != end {
                    _MailboxSubscriber.append(
                        makeEnvelope, holdsInlineEvent: holdsInlineEvent, for: self[index].subscription,
                        to: &state, of: mailbox, followUps: &followUps)
                    index += step
                }
            }
        }
    }
}

/// What an enqueue under the registry lock left to do once the lock is released.
struct _EnqueueFollowUp {
    let mailbox: _Mailbox
    let action: _MailboxState.EnqueueAction
    /// The entry, when the mailbox refused it.
    var entry: _MailboxEntry?

    func finish() {
        var entry = entry
        _ = mailbox.finishEnqueue(action, leftover: &entry)
    }
}
