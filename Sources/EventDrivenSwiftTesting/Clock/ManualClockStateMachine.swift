// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A manual clock's time and its pending dispatches, ordered by due time, then by the order
/// they were scheduled in. A pure value; the clock runs it under its lock and fires outside.
struct _ManualClockStateMachine<Item> {
    /// The clock's time, in nanoseconds on the `DispatchTime` axis.
    private(set) var now: UInt64
    /// Pending items, earliest first (ties in scheduling order).
    private var pending: [(due: UInt64, order: UInt64, item: Item)] = []
    private var nextOrder: UInt64 = 0

    init(now: UInt64) {
        self.now = now
    }

    var pendingCount: Int { pending.count }
    var nextDue: UInt64? { pending.first?.due }

    /// Adds `item`, due at `due`.
    mutating func schedule(_ item: Item, due: UInt64) {
        let entry = (due: due, order: nextOrder, item: item)
        nextOrder += 1
        let index = pending.firstIndex { ($0.due, $0.order) > (entry.due, entry.order) } ?? pending.endIndex
        pending.insert(entry, at: index)
    }

    /// Removes and returns the earliest item due at or before `limit`, and moves the time to
    /// its due time; `nil` when none is.
    mutating func takeDue(through limit: UInt64) -> Item? {
        guard let first = pending.first, first.due <= limit else { return nil }
        pending.removeFirst()
        now = max(now, first.due)
        return first.item
    }

    /// Moves the time to `time`, never backwards.
    mutating func advance(to time: UInt64) {
        now = max(now, time)
    }

    /// Removes the items `isGone` selects (cancelled ones).
    mutating func remove(where isGone: (Item) -> Bool) {
        pending.removeAll { isGone($0.item) }
    }
}

extension _ManualClockStateMachine: Sendable where Item: Sendable {}
