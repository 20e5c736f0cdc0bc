import Synchronization

/// The storage of a bus's lifecycle: runs ``_BusLifecycleStateMachine`` under its lock, and
/// performs its actions (resuming the callers that wait for a shutdown) outside it.
///
/// Every receiver kind consults it through the bus's boundary: dispatch reads ``isAccepting``
/// (one load), and ``EventBus/register(_:)`` ends a registration that arrives after the
/// shutdown began, whatever its kind (mailbox, stream, async listener, state subscription).
final class _BusLifecycle: Sendable {
    private let machine = LockedValue(_BusLifecycleStateMachine())
    /// The machine's `isAccepting`, published for the dispatch path; sequentially consistent, so
    /// that a dispatch that saw `true` is already counted in flight when `shutdown` waits for them.
    let accepting = Atomic<Bool>(true)

    @inline(__always)
    var isAccepting: Bool { accepting.load(ordering: .sequentiallyConsistent) }

    /// Begins a shutdown: `true` when this caller must run it; otherwise returns once the
    /// shutdown that another caller runs has ended (or at once, if it has).
    func begin(immediately: Bool) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let action = machine.withLock {
                $0.shutDown(immediately: immediately) { continuation.resume(returning: false) }
            }
            switch action {
            case .run:
                accepting.store(false, ordering: .sequentiallyConsistent)
                continuation.resume(returning: true)
            case .wait:
                break
            case .returnNow:
                continuation.resume(returning: false)
            }
        }
    }

    /// Ends the shutdown this caller ran, and resumes the calls that waited for it.
    func end() {
        let waiters = machine.withLock { $0.shutdownEnded() }
        for waiter in waiters { waiter() }
    }
}
