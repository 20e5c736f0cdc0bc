// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

/// A one-shot signal that a task can await: `open()` from any thread, `await opened()` returns
/// once it has been opened (at once if it already was).
final class Latch: Sendable {
    private let state = LockedValue<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func opened() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}

/// Holds a receiver busy, so that a backlog builds up behind it the same way every run.
///
/// A handler calls `hold()`, which blocks the receiver's thread until `release()`; the demo
/// awaits `entered()` before it dispatches the backlog, so every event of the backlog is
/// waiting when the receiver takes its next batch. No sleep, no timing.
final class Turnstile: Sendable {
    private let inside = Latch()
    private let gate = DispatchSemaphore(value: 0)

    /// Called by the handler that holds its receiver.
    func hold() {
        inside.open()
        gate.wait()
    }

    /// Returns once a handler is inside ``hold()``.
    func entered() async { await inside.opened() }

    /// Lets the held handler return.
    func release() { gate.signal() }
}

/// An event whose listener holds its receiver busy with a ``Turnstile``.
struct Hold: Eventable {}
