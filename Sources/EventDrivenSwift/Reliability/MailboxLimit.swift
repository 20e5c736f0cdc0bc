// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// The bound of one mailbox, with what its overflow policy needs: where blocked producers wait,
/// what it dropped, and whom to tell when a dispatch fails.
final class _MailboxLimit: Sendable {
    let capacity: Int
    let whenFull: EventOverflowPolicy
    /// The receiver's name, for ``EventDrivenError/mailboxFull(receiver:eventType:)``.
    let receiver: String
    /// Events this mailbox's policy dropped.
    let dropped = Atomic<Int>(0)
    /// The receivers this one belongs with, such as the threads of one pool: a handler of any
    /// of them that dispatches to this mailbox is dispatching to its own receiver, and never
    /// waits for space. `nil` for a receiver on its own.
    let group: ObjectIdentifier?
    private let space = DispatchSemaphore(value: 0)
    private weak let bus: EventBus?

    init?(_ policy: EventMailboxPolicy, receiver: String, bus: EventBus, group: ObjectIdentifier? = nil) {
        guard case .bounded(let capacity, let whenFull) = policy else { return nil }
        precondition(capacity >= 1, "a bounded mailbox needs a capacity of at least 1")
        self.capacity = capacity
        self.whenFull = whenFull
        self.receiver = receiver
        self.bus = bus
        self.group = group
    }

    /// `true` when the current thread is draining `mailbox` or another receiver of its group.
    func isOwnReceiver(_ mailbox: _Mailbox) -> Bool {
        guard let current = _ReceiverContext.current?.mailbox else { return false }
        return current === mailbox || (group != nil && current.limit?.group == group)
    }

    /// Producers counted as waiting for space (they may be about to wait, or retrying).
    private let blocked = Atomic<Int>(0)

    /// `true` for ``EventOverflowPolicy/dropOldest``: the mailbox takes every event, and its
    /// drainer drops the oldest beyond the capacity when it takes them.
    var dropsOldest: Bool {
        if case .dropOldest = whenFull { return true }
        return false
    }

    /// Producers waiting for space in a full blocking mailbox.
    var blockedProducers: Int { blocked.load(ordering: .relaxed) }

    /// Set by ``releaseProducers()``: producers no longer wait for space.
    private let producersReleased = Atomic<Bool>(false)

    /// `true` once producers no longer wait for space (the receiver is stopping at once).
    var isReleased: Bool { producersReleased.load(ordering: .sequentiallyConsistent) }

    /// Lets every producer, waiting or to come, past the bound without waiting: for a receiver
    /// that stops at once and discards what it holds, whose stop first waits for the dispatches
    /// already under way (a pool's). What they push is then discarded, and counted, by the stop.
    func releaseProducers() {
        producersReleased.store(true, ordering: .sequentiallyConsistent)
        wakeBlockedProducers()
    }

    /// Wakes every producer counted as blocked; each looks for space again. Called by the
    /// drainer after each take, and by a close.
    @inline(__always)
    func wakeBlockedProducers() {
        let count = blocked.load(ordering: .sequentiallyConsistent)
        for _ in 0..<count { space.signal() }
    }

    /// Counts this producer as blocked, before its last look for space: a take that comes
    /// after that look sees it and wakes it.
    func beginBlocking() { blocked.add(1, ordering: .sequentiallyConsistent) }

    /// Stops counting this producer as blocked.
    func endBlocking() { blocked.subtract(1, ordering: .sequentiallyConsistent) }

    /// Waits for the drainer to make room; `false` when `deadline` passed first.
    func waitForSpace(until deadline: DispatchTime) -> Bool {
        space.wait(timeout: deadline) == .success
    }

    /// Tells whoever dispatched that the event did not reach this receiver.
    func reportRefused(_ envelope: _EventEnvelope) {
        let error = EventDrivenError.mailboxFull(
            receiver: receiver, eventType: String(reflecting: type(of: envelope.event)))
        if _DispatchFailures.current?.record(error) != true { bus?.report(error) }
    }
}
