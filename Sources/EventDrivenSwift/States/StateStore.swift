// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// The current value of every state set on one bus.
///
/// Each state has a cell with a lock of its own while it is in use: while it has a value or a
/// subscriber. A cell that has neither is retired and forgotten, so that keys nobody uses any
/// more (one state per player id) do not pile up; a later `set` or `subscribe` makes a new cell.
/// Versions start again in the new cell, which is safe: a retired cell had no subscriber whose
/// gate remembers a version.
///
/// Nothing here is generic: a cell keeps its value as the envelope of the change that made it
/// (its event a `_StateChange<Value>`), so that a change runs no generic code of the library
/// but what the caller's module specialized (``EventBus/set(_:to:)``).
final class _StateStore: Sendable {
    private let cells = LockedValue<[_ChannelKey: _StateCell]>([:])

    /// The cell of the state `identity`, created on first use or when the one found was retired.
    ///
    /// A caller that then finds the cell retired under its lock asks again.
    func cell(for identity: _ChannelKey) -> _StateCell {
        let (cell, retired) = cells.withLock { cells -> (_StateCell, _StateCell?) in
            if let cell = cells[identity], !cell.isRetired { return (cell, nil) }
            let cell = _StateCell()
            return (cell, cells.updateValue(cell, forKey: identity))
        }
        // A retired cell holds no value; it is released here anyway, outside the lock.
        _ = consume retired
        return cell
    }

    /// The cell of the state `identity` if it is in use (it has a value or a subscriber).
    func existingCell(for identity: _ChannelKey) -> _StateCell? {
        cells.withLock { $0[identity] }
    }

    /// Forgets the cell of the state `identity` if it has no value and `bus` no subscriber of it.
    ///
    /// Called when a value is removed or a subscription ends. Takes the cell's lock, then (if
    /// the cell is retired) the store's, never both at once.
    func forgetIfUnused(_ identity: _ChannelKey, on bus: EventBus) {
        guard let cell = cells.withLock({ $0[identity] }), cell.retireIfUnused(on: bus, identity) else { return }
        forget(cell, identity)
    }

    /// Removes `cell`, which its owner retired under its lock, unless a new cell replaced it.
    func forget(_ cell: _StateCell, _ identity: _ChannelKey) {
        // The entry leaves the dictionary whole and is released after the lock: its key is the
        // user's, whose `deinit` may be user code.
        let removed = cells.withLock { cells -> (key: _ChannelKey, value: _StateCell)? in
            guard let index = cells.index(forKey: identity), cells[index].value === cell else { return nil }
            return cells.remove(at: index)
        }
        _ = consume removed
    }
}

/// One state's current value and version, behind the lock that orders its changes and its
/// new subscribers.
///
/// The lock is never held while a subscriber's mailbox takes a change (a bounded one may make
/// the producer wait) nor while user code runs (a value's `==` or `deinit`): changes for
/// subscribers that do not run on the setter's thread are handed over in order, by one
/// publisher at a time, whichever setter found no one publishing; changes made meanwhile wait
/// in the cell's outbox.
final class _StateCell: Sendable {
    struct Slot {
        /// The change that made the current value (its event a `_StateChange<Value>`, its
        /// sequence number the version, its annotation the record of the change, which a new
        /// subscriber's first value carries too); `nil` while the state has no value.
        var current: _EventEnvelope?
        /// How many times the value changed; 0 before the first `set`.
        var version: UInt64 = 0
        /// Changes and first values waiting for the publisher, oldest first.
        var outbox: [_StatePublication] = []
        /// `true` while a setter hands changes over; the others only add to the outbox.
        var isPublishing = false
        /// `true` once the store forgot the cell (see ``_StateStore``): a setter or subscriber
        /// that finds it so goes back to the store for the current cell.
        fileprivate(set) var isRetired = false

        /// Retires the slot if it has no value and `bus` no subscriber of `identity`.
        mutating func retireIfUnused(on bus: EventBus, _ identity: _ChannelKey) -> Bool {
            // Subscribers register under the cell's lock, held here, so none can come meanwhile.
            guard !isRetired, current == nil, bus.registry.withLock({ $0.channels[identity] == nil }) else {
                return false
            }
            isRetired = true
            return true
        }

        /// Hands `publication` to the caller to publish when no one is publishing (`true`), or
        /// queues it for the one who is (`false`).
        mutating func post(_ publication: _StatePublication) -> Bool {
            if isPublishing {
                outbox.append(publication)
                return false
            }
            isPublishing = true
            return true
        }
    }

    private let slot = LockedValue(Slot())
    /// ``Slot/isRetired``, for the store to read without taking the cell's lock.
    private let retired = Atomic<Bool>(false)

    func withLock<Result>(_ body: (inout Slot) -> Result) -> Result {
        slot.withLock { body(&$0) }
    }

    var isRetired: Bool { retired.load(ordering: .acquiring) }

    func retireIfUnused(on bus: EventBus, _ identity: _ChannelKey) -> Bool {
        slot.withLock { slot in
            guard slot.retireIfUnused(on: bus, identity) else { return false }
            retired.store(true, ordering: .releasing)
            return true
        }
    }

    /// Takes the value out, and retires the cell if `bus` has no subscriber of `identity`;
    /// the caller frees the value outside the lock and, if retired, has the store forget the cell.
    func takeValue(on bus: EventBus, _ identity: _ChannelKey) -> (removed: _EventEnvelope?, retired: Bool) {
        slot.withLock { slot in
            let removed = slot.current.take()
            guard slot.retireIfUnused(on: bus, identity) else { return (removed, false) }
            retired.store(true, ordering: .releasing)
            return (removed, true)
        }
    }

    /// Hands `first` over, then every publication queued meanwhile, in order, outside the lock,
    /// until the outbox is empty; called by the setter that ``Slot/post(_:)`` told to publish.
    func publish(_ first: _StatePublication) {
        first.send()
        while true {
            let batch: [_StatePublication] = slot.withLock { slot in
                if slot.outbox.isEmpty {
                    slot.isPublishing = false
                    return []
                }
                defer { slot.outbox = [] }
                return slot.outbox
            }
            if batch.isEmpty { return }
            for publication in batch { publication.send() }
        }
    }
}

/// One change (or first value) of a state for the subscribers that take it in order.
struct _StatePublication: Sendable {
    /// Who takes a publication.
    enum Recipients: Sendable {
        /// Every subscriber of the route (none runs on the setter's thread): handed over as a
        /// dispatch is, each target's subscribers together (``_Route/deliver(_:)``).
        case route(_Route)
        /// The subscribers of the route that do not run on the setter's thread, one by one.
        case inOrderOf(_Route)
        /// The one new subscriber a first value is for.
        case newSubscriber(_Subscription)
    }

    let envelope: _EventEnvelope
    let recipients: Recipients

    /// Hands ``envelope`` to its recipients, in registration order.
    func send() {
        switch recipients {
        case .route(let route):
            route.deliver(envelope)
        case .inOrderOf(let route):
            for subscription in route.subscriptions where !subscription.target.runsOnSender {
                subscription.send(envelope)
            }
        case .newSubscriber(let subscription):
            subscription.send(envelope)
        }
    }
}
