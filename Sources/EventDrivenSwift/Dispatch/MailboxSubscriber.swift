/// One subscriber of a route that delivers into an unbounded mailbox: a subscription, or a group
/// of consecutive subscriptions sharing the mailbox, held unretained (the route keeps them alive,
/// and a subscription its mailbox).
///
/// Used only while the registry lock is held, which keeps the route, and so every object, alive.
struct _MailboxSubscriber: Sendable {
    let recipient: _MailboxRecipient
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
            let action = mailbox.append(makeEnvelope, holdsInlineEvent: holdsInlineEvent, for: recipient)
            if case .none = action { return }
            followUps.append(_EnqueueFollowUp(mailbox: mailbox, action: action))
        }
    }

    /// The mailbox subscribers of `subscriptions`, in order, when every one delivers into an
    /// unbounded mailbox; `nil` otherwise. Consecutive subscriptions that share a mailbox become
    /// one group, and `groups` receives the groups, for the route to keep them alive.
    static func of(_ subscriptions: [_Subscription], groups: inout [_SubscriptionGroup]) -> [_MailboxSubscriber]? {
        var subscribers: [_MailboxSubscriber] = []
        var start = 0
        while start < subscriptions.count {
            guard let mailbox = subscriptions[start].mailbox, mailbox.limit == nil else { return nil }
            var end = start + 1
            while end < subscriptions.count && subscriptions[end].mailbox === mailbox { end += 1 }
            let recipient: _MailboxRecipient
            if end - start == 1 {
                recipient = _MailboxRecipient(.passUnretained(subscriptions[start]))
            } else {
                let group = _SubscriptionGroup(Array(subscriptions[start..<end]))
                groups.append(group)
                recipient = _MailboxRecipient(.passUnretained(group))
            }
            subscribers.append(_MailboxSubscriber(recipient: recipient, mailbox: .passUnretained(mailbox)))
            start = end
        }
        return subscribers
    }
}

extension [_MailboxSubscriber] {
    /// Appends an entry for each subscriber to its mailbox, each with the envelope
    /// `makeEnvelope` returns for it. A stacked event (`method`) goes to them in reverse,
    /// because each receiver runs its stacked entries newest first: a receiver reached by two
    /// subscribers of the type then still runs them in registration order.
    @inline(__always)
    func enqueue(
        method: EventDispatchMethod, holdsInlineEvent: Bool, _ makeEnvelope: () -> _EventEnvelope,
        followUps: inout [_EnqueueFollowUp]
    ) {
        if count == 1 {
            self[0].enqueue(makeEnvelope, holdsInlineEvent: holdsInlineEvent, followUps: &followUps)
        } else if method == .stack {
            for subscriber in reversed() {
                subscriber.enqueue(makeEnvelope, holdsInlineEvent: holdsInlineEvent, followUps: &followUps)
            }
        } else {
            for subscriber in self {
                subscriber.enqueue(makeEnvelope, holdsInlineEvent: holdsInlineEvent, followUps: &followUps)
            }
        }
    }
}

/// What an enqueue under the registry lock left to do once the lock is released.
struct _EnqueueFollowUp {
    let mailbox: _Mailbox
    let action: _MailboxStateMachine.EnqueueAction

    func finish() {
        _ = mailbox.finishEnqueue(action)
    }
}
