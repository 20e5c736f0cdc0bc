// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization
import Testing

// MARK: Issue 12 §3.2: a member callback calling evaluateScaling() while the pool stops

/// Holds a pool once it exists, for the callbacks of its own threads.
private final class PoolReference<T: EventThread>: Sendable {
    let pool = LockedValue<EventPool<T>?>(nil)
}

/// A job whose handler waits until its thread is being cancelled, then asks the pool to scale.
private struct ScaleWhileStopping: Eventable {
    let entered = DispatchSemaphore(value: 0)
    /// Signalled by ``StopScalingWorker/cancel(draining:)``, that is while the pool stops.
    let stopping = DispatchSemaphore(value: 0)
    let evaluated = DispatchSemaphore(value: 0)
    let pool: PoolReference<StopScalingWorker>
}

private final class StopScalingWorker: EventThread, @unchecked Sendable {  // `stopping` is a LockedValue
    private let stopping = LockedValue<DispatchSemaphore?>(nil)

    override func registerEventListeners() {
        addEventCallback(ScaleWhileStopping.self) { [stopping] job, _ in
            stopping.withLock { $0 = job.stopping }
            job.entered.signal()
            job.stopping.wait()
            job.pool.pool.withLock { $0 }?.evaluateScaling()
            job.evaluated.signal()
        }
    }

    @discardableResult
    override func cancel(draining: Bool = false) -> Int {
        stopping.withLock { $0 }?.signal()
        return super.cancel(draining: draining)
    }
}

// MARK: Issue 12 §3.3: a member's callbacks for a stacked event run in registration order

private struct Ordered: Eventable {
    let name: String
    let log: CoreRecorder<String>
}

private struct Hold: Eventable {
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
}

private final class ThreeCallbackWorker: EventThread, @unchecked Sendable {  // no state of its own beyond EventThread's
    override func registerEventListeners() {
        addEventCallback(Hold.self) { hold, _ in
            hold.entered.signal()
            hold.gate.wait()
        }
        for callback in ["a", "b", "c"] {
            addEventCallback(Ordered.self) { event, _ in event.log.append("\(event.name)\(callback)") }
        }
    }
}

/// The same callbacks behind a bounded mailbox, which takes one entry per callback.
// @unchecked Sendable: no state of its own beyond EventThread's
private final class BoundedThreeCallbackWorker: EventThread, @unchecked Sendable {
    override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 100, whenFull: .dropNewest) }

    override func registerEventListeners() {
        addEventCallback(Hold.self) { hold, _ in
            hold.entered.signal()
            hold.gate.wait()
        }
        for callback in ["a", "b", "c"] {
            addEventCallback(Ordered.self) { event, _ in event.log.append("\(event.name)\(callback)") }
        }
    }
}

/// Runs the D3 batch through a one-thread pool of `Worker` and returns the order of the callbacks.
private func poolBatchOrder<Worker: EventThread>(_: Worker.Type, label: String) async -> [String] {
    let bus = EventBus(label: label)
    let pool = EventPool<Worker>(capacity: 1, bus: bus)
    let log = CoreRecorder<String>()
    let hold = Hold()
    bus.queue(hold)
    _ = await poolWait(hold.entered)
    // One batch, taken once the hold is released: stacked newest first, then queued.
    bus.stack(Ordered(name: "s1", log: log))
    bus.queue(Ordered(name: "q1", log: log))
    bus.stack(Ordered(name: "s2", log: log))
    hold.gate.signal()
    await pool.drain()
    pool.stop()
    return log.values
}

// MARK: Issue 12 §3.8: bus.shutdown() stops the pool

/// Remembers every worker it builds, per bus, so a test can check that they stopped.
private final class RememberedWorker: EventThread, @unchecked Sendable {  // `made` is a LockedValue
    static let made = LockedValue<[ObjectIdentifier: [RememberedWorker]]>([:])

    required init(bus: EventBus) {
        super.init(bus: bus)
        Self.made.withLock { $0[ObjectIdentifier(bus), default: []].append(self) }
    }

    override func registerEventListeners() {
        addEventCallback(PoolJob.self) { job, _ in job.probe.handle(job, on: self) }
    }
}

// MARK: Issue 13 item 10: handled counts never go down

/// The test sets the thread count.
private struct TargetScaler: EventPoolScaling {
    let target: LockedValue<Int>
    var evaluationInterval: Duration? { nil }

    func threadCount(for metrics: EventPoolMetrics, at now: DispatchTime) -> Int { target.withLock { $0 } }
}

@Suite("EventPool defects (issue 12 §3.2, §3.3, §3.8; issue 13 item 10)")
struct PoolDefectTests {
    @Test("P4 (issue 12 §3.2): a member callback calling evaluateScaling() while the pool stops does not deadlock")
    func evaluateScalingDuringStop() async {
        let bus = EventBus(label: "P4-stop-scaling")
        let reference = PoolReference<StopScalingWorker>()
        let pool = EventPool<StopScalingWorker>(capacity: 1, bus: bus)
        reference.pool.withLock { $0 = pool }
        let job = ScaleWhileStopping(pool: reference)
        bus.queue(job)
        #expect(await poolWait(job.entered))
        // The callback runs until its thread is cancelled, which happens inside `stop`.
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue(label: "test-stop").async {  // not the global queue: Swift's tasks run there
            pool.stop()
            stopped.signal()
        }
        #expect(await poolWait(stopped), "stop() returned")
        #expect(await poolWait(job.evaluated), "the callback's evaluateScaling() returned")
        #expect(pool.isStopped)
        reference.pool.withLock { $0 = nil }
    }

    @Test("D3 (issue 12 §3.3): a pool member runs its callbacks for a stacked event in registration order")
    func stackedCallbacksInRegistrationOrder() async {
        let expected = ["s2a", "s2b", "s2c", "s1a", "s1b", "s1c", "q1a", "q1b", "q1c"]
        #expect(await poolBatchOrder(ThreeCallbackWorker.self, label: "D3-pool-stack") == expected)
        #expect(await poolBatchOrder(BoundedThreeCallbackWorker.self, label: "D3-pool-stack-bounded") == expected)
    }

    @Test("R5 (issue 12 §3.8): bus.shutdown() stops the bus's pools, and isStopped says so", arguments: [false, true])
    func shutdownStopsPools(immediately: Bool) async {
        let bus = EventBus(label: "R5-pool-\(immediately)")
        let pool = EventPool<RememberedWorker>(capacity: 2, bus: bus)
        let probe = PoolProbe()
        for id in 0..<10 { bus.queue(PoolJob(id: id, probe: probe)) }
        await bus.shutdown(immediately: immediately)
        #expect(pool.isStopped)
        #expect(pool.threadCount == 0)
        let workers = RememberedWorker.made.withLock { $0.removeValue(forKey: ObjectIdentifier(bus)) ?? [] }
        #expect(workers.count == 2)
        #expect(workers.allSatisfy { $0.isCancelled }, "every thread of the pool stopped")
        #expect(pool.stop() == 0, "stopping again does nothing")
    }

    @Test("P4 (issue 13 item 10): metrics.handledEvents never goes down while a thread retires or the pool stops")
    func handledNeverGoesDown() async {
        let bus = EventBus(label: "P4-handled-monotonic")
        let target = LockedValue(2)
        let pool = EventPool<PoolWorker>(capacity: 2, scaler: TargetScaler(target: target), bus: bus)
        let gates = [2: DispatchSemaphore(value: 0), 3: DispatchSemaphore(value: 0)]
        let probe = PoolProbe(jobGates: gates)
        // Read and recorded under one lock, so that the record is in the order of the reads.
        let samples = LockedValue<[Int]>([])
        @Sendable func sample() -> Int {
            samples.withLock { samples in
                samples.append(pool.metrics.handledEvents)
                return samples[samples.count - 1]
            }
        }

        // Round robin: jobs 0, 2, 4 go to the first thread, 1 and 3 to the second.
        bus.queue(PoolJob(id: 0, probe: probe))
        bus.queue(PoolJob(id: 1, probe: probe))
        await pool.drain()
        #expect(sample() == 2)
        for id in 2...4 { bus.queue(PoolJob(id: id, probe: probe)) }
        #expect(await poolWait(probe.entered, count: 2))
        #expect(sample() == 2)

        // The second thread (job 3 running, nothing waiting) is the least loaded: it retires, and
        // stays retiring while job 3 is held at its gate.
        target.withLock { $0 = 1 }
        pool.evaluateScaling()
        #expect(pool.threadCount == 1)
        #expect(pool.metrics.retiringThreadCount == 1)
        #expect(sample() == 2, "the retiring thread's handled job still counts")

        // Sample without pause while the retirement and the rest of the work finish.
        let stopSampling = Atomic<Bool>(false)
        let samplerDone = DispatchSemaphore(value: 0)
        // On a thread of its own: a loop on a global queue would hold one of the few threads that
        // also run this test's awaits, and with another test doing the same the awaits would
        // never resume (the suite once hung here, the sampler's array growing to 2.7 GB).
        Thread {
            while !stopSampling.load(ordering: .acquiring) { _ = sample() }
            samplerDone.signal()
        }.start()
        gates[3]?.signal()
        gates[2]?.signal()
        await pool.drain()
        #expect(pool.metrics.retiringThreadCount == 0)
        #expect(sample() == 5)
        pool.stop(draining: true)
        #expect(sample() == 5, "a stopped pool keeps what its threads handled")
        stopSampling.store(true, ordering: .releasing)
        #expect(await poolWait(samplerDone))

        let values = samples.withLock { $0 }
        let decreases = zip(values, values.dropFirst()).filter { $0 > $1 }
        #expect(decreases.isEmpty, "handledEvents went down: \(decreases.prefix(5))")
    }
}
