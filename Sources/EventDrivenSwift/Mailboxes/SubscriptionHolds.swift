import Synchronization

/// Strong references to the subscriptions of a set of mailbox entries, one per subscription
/// rather than one per entry.
///
/// A mailbox keeps one for its pending entries and hands it to the drainer with the batch, which
/// drops it once the batch has run. A receiver with one subscription retains it once per batch.
///
/// Each generation of a set (from its creation or its last ``removeAll()``) has a number no
/// other set ever had; a subscription records the generation that last held it, so that asking
/// again is one comparison whatever the number of subscriptions sharing the mailbox. A set must
/// not be copied and then mutated in both copies (mailboxes only move theirs, with `swap`).
struct _SubscriptionHolds {
    private var subscriptions: [_Subscription] = []
    /// This generation's number.
    private var generation = _SubscriptionHolds.newGeneration()
    /// The subscription held last, compared before its record of holds is read.
    private var newest: UnsafeMutableRawPointer?

    /// The source of generation numbers, shared by every set.
    private static let generations = Atomic<UInt64>(0)

    private static func newGeneration() -> UInt64 {
        generations.add(1, ordering: .relaxed).newValue
    }

    /// Keeps the subscription of `entry` alive until ``removeAll()``.
    @inline(__always)
    mutating func hold(subscriptionOf entry: borrowing _MailboxEntry) {
        let address = entry.subscriptionAddress
        if newest == address { return }
        newest = address
        let subscription = entry.unretainedSubscription
        if subscription._withUnsafeGuaranteedRef({ $0.recordHold(generation: generation) }) {
            subscriptions.append(subscription.takeUnretainedValue())
        }
    }

    /// Releases every hold, keeping the storage for reuse, and starts a new generation.
    mutating func removeAll() {
        subscriptions.removeAll(keepingCapacity: true)
        newest = nil
        generation = Self.newGeneration()
    }
}
