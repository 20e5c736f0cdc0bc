/// One subscription of a route that delivers into an unbounded mailbox, held unretained: the
/// route's `subscriptions` keeps the subscription alive, and the subscription its mailbox.
///
/// Used only while the registry lock is held, which keeps the route, and so both objects, alive.
struct _MailboxSubscriber: Sendable {
    let subscription: Unmanaged<_Subscription>
    let mailbox: Unmanaged<_Mailbox>

    /// Appends `envelope` to the mailbox; what must be done after the registry lock is released
    /// (a wake, a refused entry) goes to `followUps`.
    @inline(__always)
    func enqueue(_ envelope: consuming _EventEnvelope, followUps: inout [_EnqueueFollowUp]) {
        var slot: _MailboxEntry? = _MailboxEntry(envelope: envelope, unretainedSubscription: subscription)
        mailbox._withUnsafeGuaranteedRef { mailbox in
            let action = mailbox.state.withLock { $0.enqueue(taking: &slot) }
            if action != .none {
                followUps.append(_EnqueueFollowUp(mailbox: mailbox, action: action, entry: slot.take()))
            }
        }
    }
}

extension [_MailboxSubscriber] {
    /// Appends `envelope` to every subscriber's mailbox. A stacked event goes to them in
    /// reverse, because each receiver runs its stacked entries newest first: a receiver with
    /// several callbacks for the type then still runs them in registration order.
    @inline(__always)
    func enqueue(_ envelope: consuming _EventEnvelope, followUps: inout [_EnqueueFollowUp]) {
        if count == 1 {
            self[0].enqueue(envelope, followUps: &followUps)
        } else if envelope.metadata.method == .stack {
            for subscriber in reversed() { subscriber.enqueue(copy envelope, followUps: &followUps) }
        } else {
            for subscriber in self { subscriber.enqueue(copy envelope, followUps: &followUps) }
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
