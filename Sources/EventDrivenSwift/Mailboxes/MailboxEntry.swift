/// One delivery waiting in a mailbox: an event for one subscription, or for each subscription
/// of a ``_SubscriptionGroup``.
///
/// The entry holds its recipient unretained: the mailbox keeps it alive in the
/// ``_SubscriptionHolds`` that travels with the entry (pending, then the drainer's batch), so
/// that neither the producer nor the drainer touches its reference count per event. The count
/// lives in the object's header, which the two sides would otherwise pass back and forth between
/// cores for every event.
///
/// An entry whose event ``_boxesInline(_:)`` holds no reference at all: the drainer runs it in
/// place and reuses its memory without destroying it.
struct _MailboxEntry: Sendable {
    let envelope: _EventEnvelope
    /// The recipient, with ``inlineEventFlag`` in its lowest bit (free: see ``_MailboxRecipient``).
    private let taggedRecipient: UInt

    private static var inlineEventFlag: UInt { 1 }

    /// An entry for `recipient`, which whoever stores the entry must keep alive.
    /// - Parameter holdsInlineEvent: `true` only when the envelope's event ``_boxesInline(_:)``.
    @inline(__always)
    init(envelope: consuming _EventEnvelope, recipient: _MailboxRecipient, holdsInlineEvent: Bool) {
        self.envelope = envelope
        self.taggedRecipient = recipient.tagged | (holdsInlineEvent ? Self.inlineEventFlag : 0)
    }

    /// What the entry is for.
    @inline(__always)
    var recipient: _MailboxRecipient { _MailboxRecipient(tagged: taggedRecipient & ~Self.inlineEventFlag) }

    /// Whether the event is stored inline and holds no reference: the entry needs no destruction.
    @inline(__always)
    var holdsInlineEvent: Bool { taggedRecipient & Self.inlineEventFlag != 0 }

    /// Delivers the envelope to each subscription without retaining them, as long as `proceed()`
    /// returns `true` before each; `outcome` gets each delivery's outcome, `skipped` runs once for
    /// each subscription left out.
    @inline(__always)
    func deliver(proceed: () -> Bool, outcome: (_DeliveryOutcome) -> Void, skipped: () -> Void) {
        recipient.forEachSubscription { subscription in
            if proceed() { outcome(subscription.deliver(envelope)) } else { skipped() }
        }
    }

    /// ``deliver(proceed:outcome:skipped:)`` for the entry at `entry`, which holds an inline
    /// event, in place; the entry needs no destruction afterwards. Only the entry's trivial
    /// fields are read through `entry`, so that it is never copied.
    @inline(__always)
    static func deliverInPlace(
        _ entry: UnsafePointer<_MailboxEntry>, proceed: () -> Bool, outcome: (_DeliveryOutcome) -> Void,
        skipped: () -> Void
    ) {
        let envelope = UnsafeRawPointer(entry) + MemoryLayout<_MailboxEntry>.offset(of: \.envelope).unsafelyUnwrapped
        let eventBytes = envelope + _EventEnvelope.eventOffset
        let tagged =
            (UnsafeRawPointer(entry) + MemoryLayout<_MailboxEntry>.offset(of: \.taggedRecipient).unsafelyUnwrapped)
            .load(as: UInt.self)
        _MailboxRecipient(tagged: tagged & ~inlineEventFlag).forEachSubscription { subscription in
            if proceed() {
                outcome(
                    subscription.deliver(envelope.assumingMemoryBound(to: _EventEnvelope.self), eventBytes: eventBytes))
            } else {
                skipped()
            }
        }
    }
}

/// What a mailbox entry is for: one subscription, or each subscription of a group; unretained.
struct _MailboxRecipient: Sendable {
    /// The object's address, with ``groupFlag`` for a group. An object's address is at least
    /// 16-byte aligned, so the low bits are free; bit 0 is the entry's own.
    let tagged: UInt

    private static var groupFlag: UInt { 2 }

    init(tagged: UInt) {
        self.tagged = tagged
    }

    init(_ subscription: Unmanaged<_Subscription>) {
        tagged = UInt(bitPattern: subscription.toOpaque())
    }

    init(_ group: Unmanaged<_SubscriptionGroup>) {
        tagged = UInt(bitPattern: group.toOpaque()) | Self.groupFlag
    }

    /// The object's address, to tell recipients apart without touching its reference count.
    @inline(__always)
    var address: UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: tagged & ~Self.groupFlag).unsafelyUnwrapped
    }

    @inline(__always)
    var isGroup: Bool { tagged & Self.groupFlag != 0 }

    /// How many deliveries an entry for this recipient stands for.
    @inline(__always)
    var deliveryCount: Int {
        isGroup
            ? Unmanaged<_SubscriptionGroup>.fromOpaque(address)._withUnsafeGuaranteedRef { $0.subscriptions.count } : 1
    }

    /// Calls `body` with each subscription, in order, for as long as the caller keeps the
    /// recipient alive.
    @inline(__always)
    func forEachSubscription(_ body: (_Subscription) -> Void) {
        if isGroup {
            Unmanaged<_SubscriptionGroup>.fromOpaque(address)._withUnsafeGuaranteedRef { group in
                for subscription in group.subscriptions { body(subscription) }
            }
        } else {
            Unmanaged<_Subscription>.fromOpaque(address)._withUnsafeGuaranteedRef(body)
        }
    }
}
