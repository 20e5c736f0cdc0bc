import Synchronization

/// What a mailbox entry refers to and the holds keep alive: a subscription, or a group of them.
/// Records the generation of the ``_SubscriptionHolds`` that held it last.
// @unchecked Sendable: its one stored property is atomic; subclasses say what keeps theirs safe
class _HoldRecord: @unchecked Sendable {
    /// Several mailboxes may hold one object (a pool's threads); one overwriting another's
    /// record only makes the other hold it a second time.
    private let heldBy = Atomic<UInt64>(0)

    /// Whether the holds of `generation` keep this object alive.
    @inline(__always)
    final func isHeld(generation: UInt64) -> Bool {
        heldBy.load(ordering: .relaxed) == generation
    }

    /// Records that the holds of `generation` keep this object alive; `false` when they
    /// already did.
    @inline(__always)
    final func recordHold(generation: UInt64) -> Bool {
        if heldBy.load(ordering: .relaxed) == generation { return false }
        heldBy.store(generation, ordering: .relaxed)
        return true
    }
}

/// Strong references to the subscriptions (or groups) of a set of mailbox entries, one per
/// object rather than one per entry.
///
/// A mailbox keeps one for its pending entries and hands it to the drainer with the batch, which
/// drops it once the batch has run. A receiver with one subscription retains it once per batch.
///
/// Each generation of a set (from its creation or its last ``removeAll()``) has a number no
/// other set ever had; a subscription records the generation that last held it, so that asking
/// again is one comparison whatever the number of subscriptions sharing the mailbox. A set must
/// not be copied and then mutated in both copies (mailboxes only move theirs, with `swap`).
struct _SubscriptionHolds: Sendable {
    private var held: [_HoldRecord] = []
    /// This generation's number.
    private var generation = _SubscriptionHolds.newGeneration()
    /// The address of the object held last, compared before its record of holds is read; `0`
    /// for none. Only compared, never dereferenced.
    private var newest: UInt = 0

    /// The source of generation numbers, shared by every set.
    private static let generations = Atomic<UInt64>(0)

    private static func newGeneration() -> UInt64 {
        generations.add(1, ordering: .relaxed).newValue
    }

    /// Whether holding `recipient` (see ``hold(recipientOf:)``) needs no allocation: it is held
    /// already, or the storage has room.
    @inline(__always)
    func canHoldWithoutAllocating(_ recipient: _MailboxRecipient) -> Bool {
        let address = recipient.address
        if newest == UInt(bitPattern: address) || held.count < held.capacity { return true }
        return Unmanaged<_HoldRecord>.fromOpaque(address)._withUnsafeGuaranteedRef { $0.isHeld(generation: generation) }
    }

    /// Keeps what `entry` refers to (its subscription or group) alive until ``removeAll()``.
    @inline(__always)
    mutating func hold(recipientOf entry: borrowing _MailboxEntry) {
        hold(entry.recipient)
    }

    /// Keeps `recipient` (a subscription or group) alive until ``removeAll()``.
    @inline(__always)
    mutating func hold(_ recipient: _MailboxRecipient) {
        let address = recipient.address
        if newest == UInt(bitPattern: address) { return }
        newest = UInt(bitPattern: address)
        let recipient = Unmanaged<_HoldRecord>.fromOpaque(address)
        if recipient._withUnsafeGuaranteedRef({ $0.recordHold(generation: generation) }) {
            held.append(recipient.takeUnretainedValue())
        }
    }

    /// Releases every hold, keeping the storage for reuse, and starts a new generation.
    mutating func removeAll() {
        held.removeAll(keepingCapacity: true)
        newest = 0
        generation = Self.newGeneration()
    }
}
