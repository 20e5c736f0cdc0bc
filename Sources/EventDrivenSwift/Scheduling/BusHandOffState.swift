// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The scheduled jobs that fell due and wait for their bus's hand-off worker: a pure state
/// machine, changed only under the ``_EventScheduler``'s hand-off lock. Nothing here touches a
/// thread or a lock.
///
/// Dispatching can wait on a receiver (a full `.blockProducer` mailbox) and runs user code
/// (synchronous listeners, interceptors), so the scheduler thread does not dispatch: it hands
/// each due job to its bus, whose one worker runs them in the order handed over. A bus has a
/// worker only while it has jobs to run, and is forgotten once its worker finds none left, so
/// one bus's waits hold up no other bus, and an idle bus costs nothing.
struct _BusHandOffState<Bus: Hashable, Job> {
    /// What the storage must do after a job was handed over.
    enum HandOverAction: Equatable {
        /// The bus had no worker: start one, which runs the job.
        case startWorker
        /// The bus's worker runs the job after those handed over before it.
        case none
    }

    /// The jobs each bus's worker has yet to take; a bus is here exactly while its worker runs.
    private var waiting: [Bus: [Job]] = [:]

    /// Buses whose worker runs.
    var workerCount: Int { waiting.count }

    /// Queues `job` behind the jobs already handed over to `bus`.
    mutating func handOver(_ job: Job, to bus: Bus) -> HandOverAction {
        let hasWorker = waiting[bus] != nil
        waiting[bus, default: []].append(job)
        return hasWorker ? .none : .startWorker
    }

    /// The jobs `bus`'s worker is to run next, in the order handed over. Empty when there are
    /// none: the worker then ends, and the bus is forgotten until a job is handed over again.
    mutating func takeWaiting(for bus: Bus) -> [Job] {
        guard let jobs = waiting[bus], !jobs.isEmpty else {
            waiting[bus] = nil
            return []
        }
        waiting[bus] = []
        return jobs
    }
}

extension _BusHandOffState: Sendable where Bus: Sendable, Job: Sendable {}
