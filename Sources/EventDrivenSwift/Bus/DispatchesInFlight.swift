// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Counts the dispatches in progress on one bus: a shutdown waits until every dispatch that began
/// before it has counted its outcomes and posted its dead letters, and a route table that a
/// registration replaced is released once no dispatch that could still read it is in progress.
///
/// A dispatch enters before it checks the shutdown flag and reads the route table, and leaves when
/// it has delivered. Both sides are sequentially consistent:
/// - a shutdown sets the flag, then waits for the count to reach zero, so a dispatch that missed
///   the flag is always waited for;
/// - a registration publishes its new table, then retires the old one here; the retired tables
///   are taken and released only when the count is zero after they were retired, so every
///   dispatch that read one of them has left (it entered before it read the old table, which was
///   before the table was replaced).
///
/// The dispatch path touches ``count`` and ``needsQuiescence`` directly (EventBus.swift): entering
/// and leaving are one atomic addition each, and what waits for quiescence is looked at only when
/// the count reaches zero and someone asked for it.
final class _DispatchesInFlight: Sendable {
    /// The dispatches in progress.
    let count = Atomic<Int>(0)
    /// Not zero while a shutdown waits (``closing``, never cleared) or retired tables wait
    /// (``retiredTables``): the dispatch that brings the count to zero then calls ``quiesced()``.
    /// Bits, each set and cleared by an atomic operation of its own, so that releasing the
    /// tables cannot clear what a shutdown set meanwhile.
    let needsQuiescence = Atomic<UInt8>(0)
    private static let closing: UInt8 = 1
    private static let retiredTables: UInt8 = 2
    private let waiters = LockedValue<[@Sendable () -> Void]>([])
    /// Route tables replaced by registrations, released at the next quiescence.
    private let retired = LockedValue<[_RouteTable<_Route>]>([])

    @inline(__always)
    func enter() {
        count.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    @inline(__always)
    func leave() {
        if count.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue == 0
            && needsQuiescence.load(ordering: .sequentiallyConsistent) != 0
        {
            quiesced()
        }
    }

    /// Calls `body` once no dispatch is in progress; called after the shutdown flag is set (by a
    /// graceful stop before its drain, and by every stop once its receivers are closed).
    func whenIdle(_ body: @escaping @Sendable () -> Void) {
        waiters.withLock { $0.append(body) }
        needsQuiescence.bitwiseOr(Self.closing, ordering: .sequentiallyConsistent)
        if count.load(ordering: .sequentiallyConsistent) == 0 { quiesced() }
    }

    /// Keeps `table` until no dispatch that could have read it is in progress, then releases it
    /// (outside every lock: releasing routes may free the user's handlers).
    func retire(_ table: _RouteTable<_Route>) {
        retired.withLock { $0.append(table) }
        needsQuiescence.bitwiseOr(Self.retiredTables, ordering: .sequentiallyConsistent)
        if count.load(ordering: .sequentiallyConsistent) == 0 { quiesced() }
    }

    /// The count reached zero while something waited for it. The dispatch that brought it to
    /// zero may look only now, after another dispatch entered: what waits is taken, and run or
    /// released only if the count is still zero once it is taken (`DispatchesInFlightTests`).
    @inline(never)
    func quiesced() {
        for body in takeWhenIdle(waiters, clearing: nil) { body() }
        _ = takeWhenIdle(retired, clearing: Self.retiredTables)  // released here, outside the lock
    }

    /// Takes what `list` holds if no dispatch is in progress once it is taken; otherwise gives it
    /// back, for the dispatch that next brings the count to zero, and looks again in case that
    /// one already has. `bit` is cleared with the take and set again with the giving back.
    private func takeWhenIdle<Element>(_ list: LockedValue<[Element]>, clearing bit: UInt8?) -> [Element] {
        while true {
            // Taken first, then the count checked: everything taken was added before the check.
            let taken = list.withLock { list -> [Element] in
                defer { list = [] }
                if let bit { needsQuiescence.bitwiseAnd(~bit, ordering: .sequentiallyConsistent) }
                return list
            }
            if taken.isEmpty || count.load(ordering: .sequentiallyConsistent) == 0 { return taken }
            list.withLock { $0.append(contentsOf: taken) }
            if let bit { needsQuiescence.bitwiseOr(bit, ordering: .sequentiallyConsistent) }
            if count.load(ordering: .sequentiallyConsistent) != 0 { return [] }
        }
    }
}
