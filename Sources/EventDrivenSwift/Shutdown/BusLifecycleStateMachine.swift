/// The lifecycle of a bus as a pure state machine: accepting → shutting down (graceful or
/// immediate) → closed. Its transitions return what the caller must do; it never touches a lock,
/// a thread or a continuation (``_BusLifecycle`` owns the lock and performs the actions).
struct _BusLifecycleStateMachine: Sendable {
    typealias Waiter = @Sendable () -> Void

    private enum State: Sendable {
        /// Dispatches and registrations are accepted.
        case accepting
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
        /// The bus is closed already: return now (the waiter was not kept).
        case returnNow
    }

    private var state = State.accepting

    /// `true` until the first shutdown begins; dispatches and registrations are refused after.
    var isAccepting: Bool {
        if case .accepting = state { return true }
        return false
    }

    /// `true` once a shutdown has ended.
    var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// How the shutdown that is running (or ran) was asked for; `nil` while accepting.
    var isImmediate: Bool? {
        switch state {
        case .accepting, .closed: nil
        case .shuttingDown(let immediately, _): immediately
        }
    }

    /// A call to `shutdown(immediately:)`; `waiter` is kept when the call must wait for another.
    mutating func shutDown(immediately: Bool, whenClosed waiter: @escaping Waiter) -> ShutdownAction {
        switch state {
        case .accepting:
            state = .shuttingDown(immediately: immediately, waiters: [])
            return .run(immediately: immediately)
        case .shuttingDown(let running, var waiters):
            waiters.append(waiter)
            state = .shuttingDown(immediately: running, waiters: waiters)
            return .wait
        case .closed:
            return .returnNow
        }
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
