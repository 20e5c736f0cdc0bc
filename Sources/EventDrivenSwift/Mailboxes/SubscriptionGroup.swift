/// Consecutive subscriptions of one route that deliver into the same mailbox (several listeners
/// on a bus's listener thread, several callbacks of one EventThread for one type).
///
/// A dispatch appends one entry for the whole group, and the mailbox's drainer runs it for each
/// subscription in registration order, exactly where their separate entries would have run: the
/// entries of one event for one mailbox were always appended together, under one hold of its
/// lock. Owned by its route; a pending entry keeps it alive through the mailbox's holds.
final class _SubscriptionGroup: _HoldRecord, @unchecked Sendable {  // immutable after init; `_HoldRecord` is atomic
    /// In registration order; at least two.
    let subscriptions: [_Subscription]

    init(_ subscriptions: [_Subscription]) {
        precondition(subscriptions.count > 1, "a group has at least two subscriptions")
        self.subscriptions = subscriptions
    }
}
