// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// The storage of a bus's lifecycle: runs ``_BusLifecycleStateMachine`` under its lock, and
/// performs its actions (resuming the callers that wait for a shutdown, cutting a graceful stop
/// short) outside it.
///
/// Every receiver kind consults it through the bus's boundary: dispatch reads ``isAccepting``
/// (one load), and ``EventBus/register(_:)`` ends a registration that arrives after the
/// shutdown began, whatever its kind (mailbox, stream, async listener, state subscription).
final class _BusLifecycle: Sendable {
    private let machine = LockedValue(_BusLifecycleStateMachine())
    /// The machine's `isAccepting`, published for the dispatch path; sequentially consistent, so
    /// that a dispatch that saw `true` is already counted in flight when `shutdown` waits for them.
    let accepting = Atomic<Bool>(true)
    /// The machine's `isFinishing`, published for the dispatches that find the bus not
    /// accepting: while it is `true`, the bus's handlers may still dispatch. Read only after
    /// ``accepting`` was found `false`, so a running bus pays nothing for it.
    let admitsHandlerDispatches = Atomic<Bool>(false)
    /// Set when a graceful stop was cut at its deadline: a follow-up that a handler running then
    /// dispatches is one of the deliveries the cut discards, not a refusal.
    let wasCut = Atomic<Bool>(false)
    /// Whether the first refusal from outside the handlers during a graceful stop has been logged.
    let warnedOfOutsideDispatch = Atomic<Bool>(false)

    @inline(__always)
    var isAccepting: Bool { accepting.load(ordering: .sequentiallyConsistent) }

    /// Begins a shutdown: `true` when this caller must run it; otherwise returns once the
    /// shutdown that another caller runs has ended (or at once, if it has). An immediate call
    /// during a graceful stop cuts the stop's wait short first.
    func begin(immediately: Bool) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let (action, cut) = machine.withLock {
                ($0.shutDown(immediately: immediately) { continuation.resume(returning: false) }, $0.cut)
            }
            switch action {
            case .run:
                accepting.store(false, ordering: .sequentiallyConsistent)
                continuation.resume(returning: true)
            case .cutAndWait:
                cut?()
            case .wait:
                break
            case .returnNow:
                continuation.resume(returning: false)
            }
        }
    }

    /// Begins a graceful stop that finishes what the bus accepted: `true` when this caller must
    /// run it (the bus now refuses dispatches from outside its handlers); otherwise as
    /// ``begin(immediately:)``. `cut` is called if an immediate shutdown is asked for meanwhile.
    func beginFinishing(cut: @escaping @Sendable () -> Void) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let action = machine.withLock {
                $0.beginFinishing(cut: cut) { continuation.resume(returning: false) }
            }
            switch action {
            case .run:
                // Handlers are admitted before outsiders are refused: no handler's dispatch is
                // refused while the switch is made.
                admitsHandlerDispatches.store(true, ordering: .sequentiallyConsistent)
                accepting.store(false, ordering: .sequentiallyConsistent)
                continuation.resume(returning: true)
            case .wait, .cutAndWait:
                break
            case .returnNow:
                continuation.resume(returning: false)
            }
        }
    }

    /// Ends the graceful stop's finish: from now on every dispatch is refused, and the shutdown
    /// proper runs, `immediately` when the finish was cut at its deadline.
    func finishingEnded(immediately: Bool) {
        if immediately { wasCut.store(true, ordering: .sequentiallyConsistent) }
        admitsHandlerDispatches.store(false, ordering: .sequentiallyConsistent)
        machine.withLock { $0.finishingEnded(immediately: immediately) }
    }

    /// Ends the shutdown this caller ran, and resumes the calls that waited for it.
    func end() {
        let waiters = machine.withLock { $0.shutdownEnded() }
        for waiter in waiters { waiter() }
    }
}
