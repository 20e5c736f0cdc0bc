/// One delivery waiting in a mailbox: an event for one subscription.
///
/// The entry holds its subscription unretained: the mailbox keeps the subscription alive in the
/// ``_SubscriptionHolds`` that travels with the entry (pending, then the drainer's batch), so
/// that neither the producer nor the drainer touches the subscription's reference count per
/// event. The count lives in the subscription's header, which the two sides would otherwise
/// pass back and forth between cores for every event.
///
/// An entry whose event ``_boxesInline(_:)`` holds no reference at all: the drainer runs it in
/// place and reuses its memory without destroying it.
struct _MailboxEntry: Sendable {
    let envelope: _EventEnvelope
    /// The subscription's address, with its lowest bit set for an entry that holds an inline
    /// event (an object's address is at least 8-byte aligned, so the bit is free).
    private let taggedSubscription: UInt

    private static var inlineEventFlag: UInt { 1 }

    /// An entry for the subscription `subscription` refers to; whoever stores the entry must
    /// keep that subscription alive.
    /// - Parameter holdsInlineEvent: `true` only when the envelope's event ``_boxesInline(_:)``.
    @inline(__always)
    init(
        envelope: consuming _EventEnvelope, unretainedSubscription subscription: Unmanaged<_Subscription>,
        holdsInlineEvent: Bool = false
    ) {
        self.envelope = envelope
        self.taggedSubscription =
            UInt(bitPattern: subscription.toOpaque()) | (holdsInlineEvent ? Self.inlineEventFlag : 0)
    }

    /// The subscription's address, to compare entries without touching its reference count.
    @inline(__always)
    var subscriptionAddress: UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: taggedSubscription & ~Self.inlineEventFlag).unsafelyUnwrapped
    }

    /// The subscription, unretained, for as long as the holds of the entry's batch keep it.
    @inline(__always)
    var unretainedSubscription: Unmanaged<_Subscription> { .fromOpaque(subscriptionAddress) }

    /// The subscription, for as long as the holds of the entry's batch keep it.
    var subscription: _Subscription { unretainedSubscription.takeUnretainedValue() }

    /// Whether the event is stored inline and holds no reference: the entry needs no destruction.
    @inline(__always)
    var holdsInlineEvent: Bool { taggedSubscription & Self.inlineEventFlag != 0 }

    /// Delivers the envelope to the subscription without retaining it.
    @inline(__always)
    func deliver() -> _DeliveryOutcome {
        unretainedSubscription._withUnsafeGuaranteedRef { $0.deliver(envelope) }
    }

    /// Delivers the entry at `entry`, which holds an inline event, in place; the entry needs no
    /// destruction afterwards.
    @inline(__always)
    static func deliverInPlace(_ entry: UnsafePointer<_MailboxEntry>) -> _DeliveryOutcome {
        let envelope = UnsafeRawPointer(entry) + MemoryLayout<_MailboxEntry>.offset(of: \.envelope).unsafelyUnwrapped
        let eventBytes = envelope + MemoryLayout<_EventEnvelope>.offset(of: \.event).unsafelyUnwrapped
        return entry.pointee.unretainedSubscription._withUnsafeGuaranteedRef {
            $0.deliver(envelope.assumingMemoryBound(to: _EventEnvelope.self), eventBytes: eventBytes)
        }
    }
}
