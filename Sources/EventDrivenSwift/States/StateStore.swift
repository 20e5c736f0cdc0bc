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
final class _StateStore: Sendable {
    private let cells = LockedValue<[_ChannelKey: any _StateCellProtocol]>([:])

    /// The cell of `state`, created on first use or when the one found was retired.
    ///
    /// A caller that then finds the cell retired under its lock asks again.
    func cell<Value>(for state: EventState<Value>) -> _StateCell<Value> {
        let (cell, retired) = cells.withLock { cells -> (_StateCell<Value>, (any _StateCellProtocol)?) in
            if let cell = cells[state.identity], !cell.isRetired {
                // The identity includes `Value`, so a cell found under it always has this type.
                return (cell as! _StateCell<Value>, nil)
            }
            let cell = _StateCell<Value>()
            return (cell, cells.updateValue(cell, forKey: state.identity))
        }
        // A retired cell holds no value; it is released here anyway, outside the lock.
        _ = consume retired
        return cell
    }

    /// The cell of `state` if it is in use (it has a value or a subscriber).
    func existingCell<Value>(for state: EventState<Value>) -> _StateCell<Value>? {
        cells.withLock { cells in
            cells[state.identity].map { $0 as! _StateCell<Value> }
        }
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
    func forget(_ cell: any _StateCellProtocol, _ identity: _ChannelKey) {
        // The entry leaves the dictionary whole and is released after the lock: its key is the
        // user's, whose `deinit` may be user code.
        let removed = cells.withLock { cells -> (key: _ChannelKey, value: any _StateCellProtocol)? in
            guard let index = cells.index(forKey: identity), cells[index].value === cell else { return nil }
            return cells.remove(at: index)
        }
        _ = consume removed
    }
}

/// A state cell of any value type, for the store.
protocol _StateCellProtocol: AnyObject, Sendable {
    /// `true` once the cell was forgotten: nothing may change it any more.
    var isRetired: Bool { get }
    /// Retires the cell if it has no value and `bus` no subscriber of `identity`; `true` if it did.
    func retireIfUnused(on bus: EventBus, _ identity: _ChannelKey) -> Bool
}

/// One state's current value and version, behind the lock that orders its changes and its
/// new subscribers.
///
/// The lock is never held while a subscriber's mailbox takes a change (a bounded one may make
/// the producer wait) nor while user code runs (a value's `==` or `deinit`): changes for
/// subscribers that do not run on the setter's thread are queued in order under the lock, in
/// the cell's outbox, and handed over outside it by one publisher at a time, whichever setter
/// found no one publishing.
final class _StateCell<Value: Equatable & Sendable>: _StateCellProtocol {
    struct Slot {
        var value: Value?
        /// The record of the change that made ``value`` (its dispatch number and service
        /// context), which a new subscriber's first value carries too.
        var annotation: _DispatchAnnotation?
        /// How many times the value changed; 0 before the first `set`.
        var version: UInt64 = 0
        /// Changes and first values not yet handed to their subscribers, oldest first.
        var outbox: [_StatePublication] = []
        /// `true` while a setter hands the outbox over; the others only add to it.
        var isPublishing = false
        /// `true` once the store forgot the cell (see ``_StateStore``): a setter or subscriber
        /// that finds it so goes back to the store for the current cell.
        fileprivate(set) var isRetired = false

        /// Retires the slot if it has no value and `bus` no subscriber of `identity`.
        mutating func retireIfUnused(on bus: EventBus, _ identity: _ChannelKey) -> Bool {
            // Subscribers register under the cell's lock, held here, so none can come meanwhile.
            guard !isRetired, value == nil, bus.registry.withLock({ $0.channels[identity] == nil }) else {
                return false
            }
            isRetired = true
            return true
        }

        /// Queues `publication`; `true` when the caller must publish (no one else is).
        mutating func post(_ publication: _StatePublication) -> Bool {
            outbox.append(publication)
            if isPublishing { return false }
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
    func takeValue(
        on bus: EventBus, _ identity: _ChannelKey
    ) -> (removed: (Value, _DispatchAnnotation?)?, retired: Bool) {
        slot.withLock { slot in
            let annotation = slot.annotation.take()
            let removed = slot.value.take().map { ($0, annotation) }
            guard slot.retireIfUnused(on: bus, identity) else { return (removed, false) }
            retired.store(true, ordering: .releasing)
            return (removed, true)
        }
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
