import Synchronization

/// Counts the dispatches in progress on one bus, so that a shutdown can wait until every
/// dispatch that began before it has counted its outcomes and posted its dead letters.
///
/// A dispatch enters, then checks the shutdown flag; a shutdown sets the flag, then waits for
/// the count to reach zero. Both sides are sequentially consistent, so a dispatch that missed the
/// flag is always seen by the shutdown. Every route is in the count while it lives (``_Route``):
/// a dispatch that delivers through a route it holds is counted by that route, without entering
/// itself, and a shutdown removes every route before it waits.
final class _DispatchesInFlight: Sendable {
    private let count = Atomic<Int>(0)
    private let isClosing = Atomic<Bool>(false)
    private let waiter = LockedValue<(@Sendable () -> Void)?>(nil)

    @inline(__always)
    func enter() {
        count.add(1, ordering: .sequentiallyConsistent)
    }

    @inline(__always)
    func leave() {
        if count.subtract(1, ordering: .sequentiallyConsistent).newValue == 0
            && isClosing.load(ordering: .sequentiallyConsistent)
        {
            wakeWaiter()
        }
    }

    /// Calls `body` once no dispatch is in progress; called once, after the shutdown flag is set.
    func whenIdle(_ body: @escaping @Sendable () -> Void) {
        waiter.withLock { $0 = body }
        isClosing.store(true, ordering: .sequentiallyConsistent)
        if count.load(ordering: .sequentiallyConsistent) == 0 { wakeWaiter() }
    }

    @inline(never)
    private func wakeWaiter() {
        // Several leaving dispatches (and the shutdown itself) may get here; the waiter runs once.
        if let body = waiter.withLock({ $0.take() }) { body() }
    }
}
