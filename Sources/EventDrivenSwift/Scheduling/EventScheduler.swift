// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Synchronization

/// The one scheduler of the process: a heap of due times served by a single thread that
/// sleeps until the earliest one. It needs no run loop and no main queue, so it works in
/// command-line programs and servers.
///
/// The storage of ``_SchedulerState`` and ``_BusHandOffState``: it owns their locks, runs the
/// state machines under them and does what they return (start or wake the thread, start a bus's
/// hand-off worker, fire or release jobs) outside them, so that neither a payload's `deinit`
/// nor a dispatch runs under a lock.
///
/// The scheduler thread never dispatches a bus's event itself: a dispatch can wait for room in
/// a full `.blockProducer` mailbox and runs synchronous listeners, and one bus's wait must not
/// hold up another's events (D6). It hands each due event to its bus's worker, a serial queue of
/// ``_BackgroundWork`` started when the bus has due events and ending when it has none left,
/// which dispatches them in due order.
final class _EventScheduler: Sendable {
    static let shared = _EventScheduler()

    /// A scheduled dispatch: the handle decides between firing and cancelling.
    struct Job: Sendable {
        let handle: ScheduledEventHandle
        /// Whose worker runs `fire`; `nil` for the library's own jobs, which never wait and run
        /// on the scheduler thread.
        let bus: ObjectIdentifier?
        let fire: @Sendable () -> Void
    }

    private let state = LockedValue(_SchedulerState<Job>())
    private let handOff = LockedValue(_BusHandOffState<ObjectIdentifier, Job>())
    private let nextID = Atomic<UInt64>(0)
    private let wakeSignal = DispatchSemaphore(value: 0)

    /// Runs `fire` on the scheduler thread at or after `time`, unless cancelled first. `fire`
    /// must return at once: it holds up every scheduled event of the process.
    func schedule(at time: DispatchTime, _ fire: @escaping @Sendable () -> Void) -> ScheduledEventHandle {
        schedule(at: time, bus: nil, fire)
    }

    /// Runs `fire` at or after `time` on the hand-off worker of `bus`, after the jobs of `bus`
    /// that fell due before it, unless cancelled first. `fire` may wait: it holds up only `bus`.
    func schedule(at time: DispatchTime, on bus: ObjectIdentifier, _ fire: @escaping @Sendable () -> Void)
        -> ScheduledEventHandle
    {
        schedule(at: time, bus: bus, fire)
    }

    private func schedule(
        at time: DispatchTime, bus: ObjectIdentifier?, _ fire: @escaping @Sendable () -> Void
    ) -> ScheduledEventHandle {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let handle = ScheduledEventHandle(dueTime: time, id: id, scheduler: self)
        let job = Job(handle: handle, bus: bus, fire: fire)
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
            if !due.isEmpty { handOver(due) }
            if let next {
                _ = wakeSignal.wait(timeout: DispatchTime(uptimeNanoseconds: next))
            } else {
                wakeSignal.wait()
            }
        }
    }

    /// Passes the jobs `due`, in due order, to their buses' workers, starting those that were
    /// idle; fires the library's own jobs here.
    private func handOver(_ due: [Job]) {
        let idleBuses = handOff.withLock { handOff in
            due.compactMap { job -> ObjectIdentifier? in
                guard let bus = job.bus else { return nil }
                return handOff.handOver(job, to: bus) == .startWorker ? bus : nil
            }
        }
        for job in due where job.bus == nil && job.handle.transition(to: .fired) {
            job.fire()
        }
        for bus in idleBuses {
            _BackgroundWork.run { [self] in runWorker(of: bus) }
        }
    }

    /// The hand-off worker of `bus`: fires its jobs in the order handed over, until none is left.
    /// A job cancelled while it waited here is skipped, and freed here.
    private func runWorker(of bus: ObjectIdentifier) {
        while true {
            let jobs = handOff.withLock { $0.takeWaiting(for: bus) }
            if jobs.isEmpty { return }
            for job in jobs where job.handle.transition(to: .fired) {
                job.fire()
            }
        }
    }
}
