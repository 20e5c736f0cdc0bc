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
final class _StateCell<Value: Equatable & Sendable>: Sendable {
    struct Slot {
        var value: Value?
        /// How many times the value changed; 0 before the first `set`.
        var version: UInt64 = 0
    }

    private let slot = LockedValue(Slot())

    func withLock<Result: Sendable>(_ body: (inout Slot) -> Result) -> Result {
        slot.withLock { body(&$0) }
    }
}
