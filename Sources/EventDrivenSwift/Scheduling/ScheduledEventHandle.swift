// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// A pending scheduled dispatch, returned by `scheduleQueue(at:)` and `scheduleStack(at:)`.
public final class ScheduledEventHandle: EventSubscription, Hashable {
    /// When the event is due.
    public let dueTime: DispatchTime
    private let state = Atomic<UInt8>(_ScheduledState.pending.rawValue)
    /// The job's id in `scheduler`.
    private let id: UInt64
    private let scheduler: _EventScheduler

    init(dueTime: DispatchTime, id: UInt64, scheduler: _EventScheduler) {
        self.dueTime = dueTime
        self.id = id
        self.scheduler = scheduler
    }

    /// Cancels the dispatch and frees the event at once, rather than at its due time (an event
    /// already due, waiting for its bus's earlier scheduled events to be dispatched, is freed
    /// when its turn comes). Does nothing once the event has fired; ``isCancelled`` then tells
    /// which came first.
    public func cancel() {
        _ = cancelIfPending()
    }

    /// ``cancel()``, telling whether this call stopped the event (`false` once it had fired or
    /// been cancelled).
    func cancelIfPending() -> Bool {
        guard transition(to: .cancelled) else { return false }
        scheduler.release(id)
        return true
    }

    /// `true` while the event is due to fire: neither fired nor cancelled.
    public var isActive: Bool { state.load(ordering: .acquiring) == _ScheduledState.pending.rawValue }

    /// `true` once ``cancel()`` has stopped the event before it fired.
    public var isCancelled: Bool { state.load(ordering: .acquiring) == _ScheduledState.cancelled.rawValue }

    /// `true` once the event has been dispatched.
    public var hasFired: Bool { state.load(ordering: .acquiring) == _ScheduledState.fired.rawValue }

    /// Moves from pending to `next`; only one of firing and cancelling can win.
    func transition(to next: _ScheduledState) -> Bool {
        state.compareExchange(
            expected: _ScheduledState.pending.rawValue, desired: next.rawValue, ordering: .acquiringAndReleasing
        ).exchanged
    }

    /// Two handles are equal when they are the same handle.
    public static func == (lhs: ScheduledEventHandle, rhs: ScheduledEventHandle) -> Bool { lhs === rhs }
    /// Hashes the handle by identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

enum _ScheduledState: UInt8 {
    case pending
    case fired
    case cancelled
}
