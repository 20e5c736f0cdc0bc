/// One subscriber of a route that delivers into an unbounded mailbox: a subscription, or a group
/// of consecutive subscriptions sharing the mailbox, held unretained (the route keeps them alive,
/// and a subscription its mailbox).
///
/// Used only while the registry lock is held, which keeps the route, and so every object, alive.
struct _MailboxSubscriber: Sendable {
    let recipient: _MailboxRecipient
    let mailbox: Unmanaged<_Mailbox>

    /// Appends an entry for the envelope `makeEnvelope` returns to the mailbox, under the
    /// registry lock, if that needs no allocation; what must be done after the lock is released
    /// (a wake: the only action of an enqueue that allocates nothing) goes to `followUps`. Returns `false`, having appended nothing, when the mailbox
    /// would have to allocate (see ``_Mailbox/appendIfRoom(_:method:priority:holdsInlineEvent:for:)``)
    /// or `followUps` is full. `holdsInlineEvent` marks the entry as holding an inline event
    /// (see ``_MailboxEntry``).
    ///
    /// The envelope is made under the mailbox's lock, straight into the entry that moves into
    /// the lane, so that it is neither copied nor destroyed on the way.
    @inline(__always)
    func enqueueIfRoom(
        _ makeEnvelope: () -> _EventEnvelope, method: EventDispatchMethod, priority: EventPriority,
        holdsInlineEvent: Bool, followUps: inout _MailboxWakes
    ) -> Bool {
        guard followUps.hasRoom else { return false }
        return mailbox._withUnsafeGuaranteedRef { mailbox in
            switch mailbox.appendIfRoom(
                makeEnvelope, method: method, priority: priority, holdsInlineEvent: holdsInlineEvent, for: recipient)
            {
            case .appended:
                return true
            case .appendedWakeDrainer:
                followUps.append(mailbox)
                return true
            case .noRoom:
                return false
            }
        }
    }
}

/// The mailbox target's plan for a route whose subscriptions all deliver into unbounded
/// mailboxes (the common case): the dispatch appends to those mailboxes while the registry lock
/// keeps the route alive, without retaining anything per event.
struct _ServedMailboxes: Sendable {
    /// One subscriber per mailbox run: consecutive subscriptions that share a mailbox are one.
    let subscribers: [_MailboxSubscriber]
    /// The groups among `subscribers`, which hold them unretained; kept alive here.
    private let groups: [_SubscriptionGroup]

    /// The plan for `subscriptions`, in order, when every one delivers into an unbounded
    /// mailbox; `nil` otherwise.
    init?(_ subscriptions: [_Subscription]) {
        var subscribers: [_MailboxSubscriber] = []
        var groups: [_SubscriptionGroup] = []
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
        self.subscribers = subscribers
        self.groups = groups
    }

    /// Appends an entry for each subscriber to its mailbox under the registry lock, each with the
    /// envelope `makeEnvelope` returns for it, until one would need an allocation (see
    /// ``_MailboxSubscriber/enqueueIfRoom(_:method:priority:holdsInlineEvent:followUps:)``).
    /// Returns how many were served; ``enqueue(after:method:holdsInlineEvent:_:)`` serves the
    /// rest once the lock is released.
    ///
    /// A stacked event (`method`) goes to them in reverse, because each receiver runs its stacked
    /// entries newest first: a receiver reached by two subscribers of the type then still runs
    /// them in registration order.
    @inline(__always)
    func enqueueIfRoom(
        method: EventDispatchMethod, priority: EventPriority, holdsInlineEvent: Bool,
        _ makeEnvelope: () -> _EventEnvelope, followUps: inout _MailboxWakes
    ) -> Int {
        if subscribers.count == 1 {
            let served = subscribers[0].enqueueIfRoom(
                makeEnvelope, method: method, priority: priority, holdsInlineEvent: holdsInlineEvent,
                followUps: &followUps)
            return served ? 1 : 0
        }
        var served = 0
        let count = subscribers.count
        for index in 0..<count {
            let subscriber = subscribers[method == .stack ? count - 1 - index : index]
            guard
                subscriber.enqueueIfRoom(
                    makeEnvelope, method: method, priority: priority, holdsInlineEvent: holdsInlineEvent,
                    followUps: &followUps)
            else { break }
            served += 1
        }
        return served
    }

    /// Appends an entry for each subscriber after the first `served` (in the order of
    /// ``enqueueIfRoom(method:priority:holdsInlineEvent:_:followUps:)``), allocating as needed,
    /// once the registry lock is released; the caller holds the route, and so the subscribers.
    /// Kept out of line: the rare path of a dispatch, inlined into every one.
    @inline(never)
    func enqueue(
        after served: Int, method: EventDispatchMethod, holdsInlineEvent: Bool, _ makeEnvelope: () -> _EventEnvelope
    ) {
        let count = subscribers.count
        for index in served..<count {
            let subscriber = subscribers[method == .stack ? count - 1 - index : index]
            subscriber.mailbox._withUnsafeGuaranteedRef {
                _ = $0.enqueue(makeEnvelope, holdsInlineEvent: holdsInlineEvent, for: subscriber.recipient)
            }
        }
    }
}

/// The mailboxes whose drainers the enqueues of one dispatch under the registry lock found idle,
/// to wake once the lock is released (the only follow-up an enqueue that allocates nothing can
/// leave): at most four, kept in place, retained, so that nothing is allocated under the lock. A
/// dispatch that would need a fifth stops serving there and enqueues to the rest of its
/// subscribers after the lock.
struct _MailboxWakes {
    private var first: Unmanaged<_Mailbox>?
    private var second: Unmanaged<_Mailbox>?
    private var third: Unmanaged<_Mailbox>?
    private var fourth: Unmanaged<_Mailbox>?
    private var count = 0

    /// Whether one more wake fits.
    @inline(__always)
    var hasRoom: Bool { count < 4 }

    /// Keeps `mailbox` (retained: its subscription may be removed before the wake) to wake.
    @inline(__always)
    mutating func append(_ mailbox: _Mailbox) {
        let retained = Unmanaged.passRetained(mailbox)
        switch count {
        case 0: first = retained
        case 1: second = retained
        case 2: third = retained
        default: fourth = retained
        }
        count += 1
    }

    /// Wakes the drainers, in the order their mailboxes were appended, and releases them.
    @inline(__always)
    func finish() {
        guard count > 0 else { return }
        Self.wake(first)
        Self.wake(second)
        Self.wake(third)
        Self.wake(fourth)
    }

    @inline(__always)
    private static func wake(_ mailbox: Unmanaged<_Mailbox>?) {
        guard let mailbox else { return }
        _ = mailbox.takeRetainedValue().finishEnqueue(.wakeDrainer)
    }
}
