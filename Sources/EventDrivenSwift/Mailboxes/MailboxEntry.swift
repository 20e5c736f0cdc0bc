/// One delivery waiting in a mailbox: an event for one subscription.
///
/// The entry holds its subscription unretained: the mailbox keeps the subscription alive in the
/// ``_SubscriptionHolds`` that travels with the entry (pending, then the drainer's batch), so
/// that neither the producer nor the drainer touches the subscription's reference count per
/// event. The count lives in the subscription's header, which the two sides would otherwise
/// pass back and forth between cores for every event.
struct _MailboxEntry: Sendable {
    let envelope: _EventEnvelope
    let unretainedSubscription: Unmanaged<_Subscription>

    /// An entry for the subscription `subscription` refers to; whoever stores the entry must
    /// keep that subscription alive.
    init(envelope: consuming _EventEnvelope, unretainedSubscription subscription: Unmanaged<_Subscription>) {
        self.envelope = envelope
        self.unretainedSubscription = subscription
    }

    /// The subscription's address, to compare entries without touching its reference count.
    var subscriptionAddress: UnsafeMutableRawPointer { unretainedSubscription.toOpaque() }

    /// The subscription, for as long as the holds of the entry's batch keep it.
    var subscription: _Subscription { unretainedSubscription.takeUnretainedValue() }

    /// Delivers the envelope to the subscription without retaining it.
    @inline(__always)
    func deliver() -> _DeliveryOutcome {
        unretainedSubscription._withUnsafeGuaranteedRef { $0.deliver(envelope) }
    }
}
