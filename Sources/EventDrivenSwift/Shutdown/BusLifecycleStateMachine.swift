// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The lifecycle of a bus as a pure state machine: accepting → (finishing →) shutting down
/// (graceful or immediate) → closed. Its transitions return what the caller must do; it never
/// touches a lock, a thread or a continuation (``_BusLifecycle`` owns the lock and performs the
/// actions).
struct _BusLifecycleStateMachine: Sendable {
    typealias Waiter = @Sendable () -> Void

    private enum State: Sendable {
        /// Dispatches and registrations are accepted.
        case accepting
        /// A stop with a deadline is finishing what the bus accepted
        /// (``EventBus/shutdown(gracefullyWithin:)``): dispatches from outside the bus's handlers
        /// are refused, its handlers' own dispatches are accepted. `cut` ends the wait for quiet
        /// at once (a later immediate shutdown asked for it); `waiters` are the later calls.
        case finishing(cut: Waiter, waiters: [Waiter])
        /// One shutdown is running; `waiters` are the later calls, resumed when it ends.
        case shuttingDown(immediately: Bool, waiters: [Waiter])
        /// The shutdown has ended: its counts are final and the dead-letter streams have ended.
        case closed
    }

    /// What a call to `shutdown` must do.
    enum ShutdownAction: Equatable {
        /// Run the shutdown: this call is the first.
        case run(immediately: Bool)
        /// Another call is running it: the waiter runs when it ends.
        case wait
        /// Another call is finishing what the bus accepted, and this call wants the rest
        /// stopped at once: cut that wait short (the returned closure), then wait like ``wait``.
        case cutAndWait
        /// The bus is closed already: return now (the waiter was not kept).
        case returnNow
    }

    private var state = State.accepting

    /// `true` until the first shutdown (or graceful stop) begins; dispatches and registrations
    /// are refused after, but for the handlers' own dispatches while the bus ``isFinishing``.
    var isAccepting: Bool {
        if case .accepting = state { return true }
        return false
    }

    /// `true` while a graceful stop with a deadline accepts the dispatches of the bus's handlers.
    var isFinishing: Bool {
        if case .finishing = state { return true }
        return false
    }

    /// `true` once a shutdown has ended.
    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// How the shutdown that is running (or ran) was asked for; `nil` while accepting, finishing
    /// or closed.
    var isImmediate: Bool? {
        switch state {
        case .accepting, .finishing, .closed: nil
        case .shuttingDown(let immediately, _): immediately
        }
    }

    /// A call to ``EventBus/shutdown(gracefullyWithin:)``: `.run(immediately: false)` when it
    /// must finish what the bus accepted; `cut` ends that wait early. Otherwise as
    /// ``shutDown(immediately:whenClosed:)``.
    mutating func beginFinishing(cut: @escaping Waiter, whenClosed waiter: @escaping Waiter) -> ShutdownAction {
        guard case .accepting = state else { return shutDown(immediately: false, whenClosed: waiter) }
        state = .finishing(cut: cut, waiters: [])
        return .run(immediately: false)
    }

    /// The graceful stop has finished what it could; the shutdown proper follows,
    /// `immediately` when it was cut at its deadline.
    mutating func finishingEnded(immediately: Bool) {
        guard case .finishing(_, let waiters) = state else {
            preconditionFailure("EventDrivenSwift: a bus's graceful stop ended without having begun")
        }
        state = .shuttingDown(immediately: immediately, waiters: waiters)
    }

    /// A call to `shutdown(immediately:)`; `waiter` is kept when the call must wait for another.
    /// While the bus is finishing, an immediate call cuts it short (the cut is returned).
    mutating func shutDown(immediately: Bool, whenClosed waiter: @escaping Waiter) -> ShutdownAction {
        switch state {
        case .accepting:
            state = .shuttingDown(immediately: immediately, waiters: [])
            return .run(immediately: immediately)
        case .finishing(let cut, var waiters):
            waiters.append(waiter)
            state = .finishing(cut: cut, waiters: waiters)
            return immediately ? .cutAndWait : .wait
        case .shuttingDown(let running, var waiters):
            waiters.append(waiter)
            state = .shuttingDown(immediately: running, waiters: waiters)
            return .wait
        case .closed:
            return .returnNow
        }
    }

    /// The cut of the graceful stop under way, if one is finishing.
    var cut: Waiter? {
        if case .finishing(let cut, _) = state { return cut }
        return nil
    }

    /// The running shutdown has ended. Returns the waiters to resume.
    mutating func shutdownEnded() -> [Waiter] {
        guard case .shuttingDown(_, let waiters) = state else {
            preconditionFailure("EventDrivenSwift: a bus's shutdown ended without having begun")
        }
        state = .closed
        return waiters
    }
}
