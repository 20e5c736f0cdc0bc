// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// The scheduled dispatches of one bus that may still fire, so that shutdown can cancel them.
final class _BusSchedule: Sendable {
    private struct State {
        var handles: [ObjectIdentifier: ScheduledEventHandle] = [:]
        /// Fired and cancelled handles are pruned when the table reaches this size.
        var pruneAt = 64
        var isClosed = false
    }

    private let state = LockedValue(State())

    /// `true` once the bus has shut down: a dispatch scheduled then is refused before it reaches
    /// the scheduler, where a past-due one could fire first (`AdversarialSchedulingTests`).
    var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Remembers `handle`; cancels it at once if the bus has already shut down.
    /// - Returns: `true` when this call cancelled it (the bus had shut down and it had not fired):
    ///   the caller reports the refusal.
    func track(_ handle: ScheduledEventHandle) -> Bool {
        let isClosed = state.withLock { state in
            guard !state.isClosed else { return true }
            state.handles[ObjectIdentifier(handle)] = handle
            if state.handles.count >= state.pruneAt {
                state.handles = state.handles.filter { !$0.value.hasFired && !$0.value.isCancelled }
                state.pruneAt = max(64, 2 * state.handles.count)
            }
            return false
        }
        return isClosed && handle.cancelIfPending()
    }

    /// Cancels every pending dispatch and every later one.
    /// - Returns: How many pending dispatches were cancelled.
    @discardableResult
    func cancelAll() -> Int {
        let handles = state.withLock { state in
            state.isClosed = true
            defer { state.handles = [:] }
            return Array(state.handles.values)
        }
        return handles.reduce(0) { $0 + ($1.cancelIfPending() ? 1 : 0) }
    }
}
