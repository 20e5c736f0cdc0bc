import Synchronization

/// Counts the `.taskThread` deliveries still running, so that `drain()` can wait for them.
final class _TaskTracker: Sendable {
    private struct State {
        var running = 0
        var waiters: [@Sendable () -> Void] = []
    }

    private let state = LockedValue(State())

    /// Runs `body` in a task of its own.
    func start(_ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.running += 1 }
        Task {
            body()
            self.finish()
        }
    }

    private func finish() {
        let waiters: [@Sendable () -> Void] = state.withLock { state in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }

    /// Calls `body` once no task is running; at once if none is.
    func whenIdle(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.running == 0 { return true }
            state.waiters.append(body)
            return false
        }
        if runNow { body() }
    }
}
