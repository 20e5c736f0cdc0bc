// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Synchronization

/// The one scheduler of the process: a heap of due times served by a single thread that
/// sleeps until the earliest one. It needs no run loop and no main queue, so it works in
/// command-line programs and servers.
///
/// The storage of ``_SchedulerState``: it owns the lock, runs the state machine under it and
/// does what the machine returns (start or wake the thread, fire or release jobs) outside it,
/// so that a payload's `deinit` never runs under the lock.
final class _EventScheduler: Sendable {
    static let shared = _EventScheduler()

    /// A scheduled dispatch: the handle decides between firing and cancelling.
    struct Job: Sendable {
        let handle: ScheduledEventHandle
        let fire: @Sendable () -> Void
    }

    private let state = LockedValue(_SchedulerState<Job>())
    private let nextID = Atomic<UInt64>(0)
    private let wakeSignal = DispatchSemaphore(value: 0)

    /// Runs `fire` on the scheduler thread at or after `time`, unless cancelled first.
    func schedule(at time: DispatchTime, _ fire: @escaping @Sendable () -> Void) -> ScheduledEventHandle {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let handle = ScheduledEventHandle(dueTime: time, id: id, scheduler: self)
        let job = Job(handle: handle, fire: fire)
        let action = state.withLock { $0.schedule(job, id: id, due: time.uptimeNanoseconds) }
        switch action {
        case .startThread:
            let thread = Thread { [self] in run() }
            // Within Linux's 15 bytes; the scheduler serves every bus of the process.
            thread.name = "eds:scheduler"
            thread.start()
        case .wakeThread:
            wakeSignal.signal()
        case .none:
            break
        }
        return handle
    }

    /// Forgets the job `id`, whose handle was just cancelled, and frees what it holds (the
    /// event) here, after the lock is released.
    func release(_ id: UInt64) {
        let cancelled = state.withLock { $0.cancel(id) }
        withExtendedLifetime(cancelled) {}
    }

    private func run() {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let (due, next) = state.withLock { $0.takeDue(now: now) }
            for job in due where job.handle.transition(to: .fired) {
                job.fire()
            }
            if let next {
                _ = wakeSignal.wait(timeout: DispatchTime(uptimeNanoseconds: next))
            } else {
                wakeSignal.wait()
            }
        }
    }
}
