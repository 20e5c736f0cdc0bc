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
    /// Run the handler of each subscription of a run of the route, in order, for the envelope:
    /// one node for several listeners of one receiver (an unbounded mailbox only). The node
    /// holds the route (one retain), which holds the subscriptions, and is released like a
    /// delivery's hold.
    case deliveries(_EventEnvelope, Unmanaged<_Route>, _RouteRun)
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

/// Which subscriptions of a route a ``_MailboxItem/deliveries`` node stands for: a range of the
/// route's subscriptions, in 8 bytes rather than the 16 of a `Range<Int>`, so that the node stays
/// small.
///
/// 32 bits are enough, so the conversion truncates without a check on the dispatch path: each
/// subscription is an object holding at least a 64-byte `_CacheLinePadding`, so a route of 2³²
/// of them would take more than 256 GiB.
struct _RouteRun: Sendable {
    let start: UInt32
    let count: UInt32

    init(_ range: Range<Int>) {
        start = UInt32(truncatingIfNeeded: range.lowerBound)
        count = UInt32(truncatingIfNeeded: range.count)
    }

    var range: Range<Int> { Int(start)..<Int(start) + Int(count) }
}
