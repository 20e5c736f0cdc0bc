// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// What one mailbox node carries: a delivery of an event to one subscription, or a barrier.
enum _MailboxItem: Sendable {
    /// Run the subscription's handler for the envelope. The node holds the subscription (one
    /// retain, taken by the producer) until the delivery has run, so a listener removed meanwhile
    /// still settles it. Whoever takes the item out releases it: the drainer once its batch has
    /// run (``_DrainerHolds``), anyone else at once (``_MailboxNodes/takeUnrun(_:)``). Held as
    /// `Unmanaged` so that the drainer's releases come together at the end of a batch instead of
    /// one per delivery, each pulling the subscription's reference count away from the
    /// producer's core.
    case delivery(_EventEnvelope, Unmanaged<_Subscription>)
    /// Run the handler of each subscription, in order, for the envelope: one node for several
    /// listeners of one receiver (an unbounded mailbox only).
    case deliveries(_EventEnvelope, ArraySlice<_Subscription>)
    /// Run once everything pushed before it has been handled.
    case barrier(@Sendable () -> Void)
}

/// What a node held, taken out without being run (discarded, dropped, or freed with its
/// mailbox): the subscription a delivery held is already released.
enum _UnrunItem {
    /// The envelope of a delivery item and how many deliveries it stood for.
    case deliveries(_EventEnvelope, count: Int)
    case barrier(@Sendable () -> Void)

    /// The envelope and how many deliveries it stood for; none for a barrier.
    var deliveries: (envelope: _EventEnvelope?, count: Int) {
        switch self {
        case .deliveries(let envelope, let count): (envelope, count)
        case .barrier: (nil, 0)
        }
    }
}
