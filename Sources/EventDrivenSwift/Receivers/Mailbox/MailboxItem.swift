// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// What one mailbox node carries: a delivery of an event to one subscription, or a barrier.
enum _MailboxItem: Sendable {
    /// Run the subscription's handler for the envelope. The node holds the subscription until
    /// the delivery has run, so a listener removed meanwhile still settles it.
    case delivery(_EventEnvelope, _Subscription)
    /// Run the handler of each subscription, in order, for the envelope: one node for several
    /// listeners of one receiver (an unbounded mailbox only).
    case deliveries(_EventEnvelope, ArraySlice<_Subscription>)
    /// Run once everything pushed before it has been handled.
    case barrier(@Sendable () -> Void)
}

extension _MailboxItem {
    /// The envelope of a delivery item and how many deliveries it stands for; none for a barrier.
    var deliveries: (envelope: _EventEnvelope?, count: Int) {
        switch self {
        case .delivery(let envelope, _): (envelope, 1)
        case .deliveries(let envelope, let subscriptions): (envelope, subscriptions.count)
        case .barrier: (nil, 0)
        }
    }
}
