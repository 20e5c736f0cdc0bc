import Synchronization

/// The current value of every state set on one bus.
///
/// Each state has a cell with a lock of its own, kept for the bus's lifetime so that versions
/// never go back.
final class _StateStore: Sendable {
    private let cells = LockedValue<[_ChannelKey: any AnyObject & Sendable]>([:])

    /// The cell of `state`, created on first use.
    func cell<Value>(for state: EventState<Value>) -> _StateCell<Value> {
        cells.withLock { cells in
            if let cell = cells[state.identity] {
                // The identity includes `Value`, so a cell found under it always has this type.
                return unsafeDowncast(cell, to: _StateCell<Value>.self)
            }
            let cell = _StateCell<Value>()
            cells[state.identity] = cell
            return cell
        }
    }

    /// The cell of `state` if it was ever set or subscribed to.
    func existingCell<Value>(for state: EventState<Value>) -> _StateCell<Value>? {
        cells.withLock { cells in
            cells[state.identity].map { unsafeDowncast($0, to: _StateCell<Value>.self) }
        }
    }
}

/// One state's current value and version, behind the lock that orders its changes and its
/// new subscribers.
///
/// The lock is never held while a subscriber's mailbox takes a change (a bounded one may make
/// the producer wait) nor while user code runs (a value's `==` or `deinit`): changes for
/// subscribers that do not run on the setter's thread are queued in order under the lock, in
/// the cell's outbox, and handed over outside it by one publisher at a time, whichever setter
/// found no one publishing.
final class _StateCell<Value: Equatable & Sendable>: Sendable {
    struct Slot {
        var value: Value?
        /// How many times the value changed; 0 before the first `set`.
        var version: UInt64 = 0
        /// Changes and first values not yet handed to their subscribers, oldest first.
        var outbox: [_StatePublication] = []
        /// `true` while a setter hands the outbox over; the others only add to it.
        var isPublishing = false

        /// Queues `publication`; `true` when the caller must publish (no one else is).
        mutating func post(_ publication: _StatePublication) -> Bool {
            outbox.append(publication)
            if isPublishing { return false }
            isPublishing = true
            return true
        }
    }

    private let slot = LockedValue(Slot())

    func withLock<Result>(_ body: (inout Slot) -> Result) -> Result {
        slot.withLock { body(&$0) }
    }

    /// Hands every queued publication over in order, outside the lock, until the outbox is
    /// empty; called by the setter that ``Slot/post(_:)`` told to publish.
    func publish() {
        while true {
            let batch: [_StatePublication] = slot.withLock { slot in
                if slot.outbox.isEmpty { slot.isPublishing = false }
                defer { slot.outbox = [] }
                return slot.outbox
            }
            if batch.isEmpty { return }
            for publication in batch {
                for subscription in publication.subscriptions {
                    subscription.send(publication.envelope)
                }
            }
        }
    }
}

/// One change (or first value) of a state for the subscribers that take it in order.
struct _StatePublication: Sendable {
    let envelope: _EventEnvelope
    let subscriptions: [_Subscription]
}
