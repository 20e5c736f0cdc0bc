/// Runs closures once it is opened; at once after that.
final class _Latch: Sendable {
    private let state = LockedValue<(isOpen: Bool, waiters: [@Sendable () -> Void])>((false, []))

    func whenOpen(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.isOpen { return true }
            state.waiters.append(body)
            return false
        }
        if runNow { body() }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter() }
    }
}
