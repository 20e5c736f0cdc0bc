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
    /// `true` while a shutdown waits or retired tables wait: the dispatch that brings the count
    /// to zero then calls ``quiesced()``.
    let needsQuiescence = Atomic<Bool>(false)
    private let isClosing = Atomic<Bool>(false)
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
            && needsQuiescence.load(ordering: .sequentiallyConsistent)
        {
            quiesced()
        }
    }

    /// Calls `body` once no dispatch is in progress; called after the shutdown flag is set (by a
    /// graceful stop before its drain, and by every stop once its receivers are closed).
    func whenIdle(_ body: @escaping @Sendable () -> Void) {
        waiters.withLock { $0.append(body) }
        isClosing.store(true, ordering: .sequentiallyConsistent)
        needsQuiescence.store(true, ordering: .sequentiallyConsistent)
        if count.load(ordering: .sequentiallyConsistent) == 0 { quiesced() }
    }

    /// Keeps `table` until no dispatch that could have read it is in progress, then releases it
    /// (outside every lock: releasing routes may free the user's handlers).
    func retire(_ table: _RouteTable<_Route>) {
        retired.withLock { $0.append(table) }
        needsQuiescence.store(true, ordering: .sequentiallyConsistent)
        if count.load(ordering: .sequentiallyConsistent) == 0 { quiesced() }
    }

    /// The count reached zero while something waited for it.
    @inline(never)
    func quiesced() {
        if isClosing.load(ordering: .sequentiallyConsistent) {
            // Several leaving dispatches (and the shutdown itself) may get here; each waiter runs once.
            for body in waiters.withLock({ waiters in
                defer { waiters = [] }
                return waiters
            }) {
                body()
            }
        }
        releaseRetired()
    }

    private func releaseRetired() {
        while true {
            // Taken first, then the count checked: every table taken was retired before the check.
            let taken = retired.withLock { retired -> [_RouteTable<_Route>] in
                defer { retired = [] }
                if !isClosing.load(ordering: .sequentiallyConsistent) {
                    needsQuiescence.store(false, ordering: .sequentiallyConsistent)
                }
                return retired
            }
            if taken.isEmpty { return }
            if count.load(ordering: .sequentiallyConsistent) == 0 { return }  // `taken` is released here
            // A dispatch entered meanwhile: give them back for the dispatch that next brings the
            // count to zero, and look again in case it already has.
            retired.withLock { $0.append(contentsOf: taken) }
            needsQuiescence.store(true, ordering: .sequentiallyConsistent)
            if count.load(ordering: .sequentiallyConsistent) != 0 { return }
        }
    }
}
