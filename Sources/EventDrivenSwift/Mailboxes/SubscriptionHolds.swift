/// Strong references to the subscriptions of a set of mailbox entries, one per subscription
/// rather than one per entry.
///
/// A mailbox keeps one for its pending entries and hands it to the drainer with the batch, which
/// drops it once the batch has run. A receiver with one subscription retains it once per batch.
struct _SubscriptionHolds {
    private var subscriptions: [_Subscription] = []
    /// The identities of the newest holds, checked before adding another.
    private var recent: [UnsafeMutableRawPointer] = []

    /// How many recent holds `hold(_:)` compares with before adding one.
    private static var window: Int { 16 }

    /// Keeps the subscription of `entry` alive until ``removeAll()``.
    @inline(__always)
    mutating func hold(subscriptionOf entry: borrowing _MailboxEntry) {
        let address = entry.subscriptionAddress
        if recent.last == address { return }
        holdIfNew(entry.subscription, address: address)
    }

    private mutating func holdIfNew(_ subscription: _Subscription, address: UnsafeMutableRawPointer) {
        if recent.suffix(Self.window).contains(address) { return }
        subscriptions.append(subscription)
        recent.append(address)
    }

    /// Releases every hold, keeping the storage for reuse.
    mutating func removeAll() {
        subscriptions.removeAll(keepingCapacity: true)
        recent.removeAll(keepingCapacity: true)
    }
}
