// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization
import Testing

/// A scaler written outside the library: the test sets the thread count.
private final class ManualScaler: EventPoolScaling, @unchecked Sendable {  // `target` and `asked` are LockedValues
    let target: LockedValue<Int>
    let asked = LockedValue(0)
    let evaluationInterval: Duration?

    init(_ target: Int, every interval: Duration? = nil) {
        self.target = LockedValue(target)
        evaluationInterval = interval
    }

    func threadCount(for metrics: EventPoolMetrics, at now: DispatchTime) -> Int {
        asked.withLock { $0 += 1 }
        return target.withLock { $0 }
    }
}

/// A scaler that announces each periodic evaluation.
private struct SignallingScaler: EventPoolScaling {
    let evaluated: DispatchSemaphore

    var evaluationInterval: Duration? { .milliseconds(1) }

    func threadCount(for metrics: EventPoolMetrics, at now: DispatchTime) -> Int {
        evaluated.signal()
        return metrics.threadCount
    }
}

private func later(_ base: DispatchTime, seconds: Int) -> DispatchTime {
    base + .seconds(seconds)
}

@Suite("EventPool scaling")
struct PoolScalingTests {
    @Test("P4: the dynamic scaler grows under load, shrinks when idle, and loses or repeats nothing")
    func dynamicUpAndDown() async {
        let bus = EventBus(label: "P4-dynamic")
        let scaler = EventPoolDynamicScaler(
            minimum: 1, maximum: 4, scaleUpThreshold: 2, window: .seconds(1), idleTimeout: .seconds(5),
            evaluationInterval: nil)
        let pool = EventPool<PoolWorker>(capacity: 1, scaler: scaler, bus: bus)
        #expect(pool.threadCount == 1)
        let probe = PoolProbe(blocking: true)
        for id in 0..<20 { bus.queue(PoolJob(id: id, probe: probe)) }
        #expect(await poolWait(probe.entered))
        let start = DispatchTime.now()
        // Overloaded, but not yet for a whole window.
        pool.evaluateScaling(now: start)
        #expect(pool.threadCount == 1)
        pool.evaluateScaling(now: later(start, seconds: 1))
        #expect(pool.threadCount == 4)
        for id in 20..<40 { bus.queue(PoolJob(id: id, probe: probe)) }
        // The new threads take their share: three of them block at the gate too.
        #expect(await poolWait(probe.entered, count: 3))
        #expect(probe.concurrency == 4)
        probe.open(40)
        await pool.drain()
        // Idle: one thread per idle timeout, down to the minimum.
        let idle = later(start, seconds: 10)
        pool.evaluateScaling(now: idle)
        #expect(pool.threadCount == 4)
        for step in 1...4 {
            pool.evaluateScaling(now: later(idle, seconds: 5 * step))
            #expect(pool.threadCount == max(1, 4 - step))
        }
        for id in 40..<60 { bus.queue(PoolJob(id: id, probe: probe)) }
        probe.open(20)
        await pool.drain()
        #expect(probe.all.map(\.job).sorted() == Array(0..<60))
        #expect(await coreEventually { pool.metrics.retiringThreadCount == 0 })
        #expect(await coreEventually { pool.metrics.handledEvents == 60 })
        pool.stop()
    }

    @Test("P4: shrinking under load lets retiring threads finish everything they accepted")
    func shrinkUnderLoad() async {
        let bus = EventBus(label: "P4-shrink")
        let scaler = ManualScaler(4)
        let pool = EventPool<PoolWorker>(capacity: 4, scaler: scaler, bus: bus)
        let probe = PoolProbe(blocking: true)
        for id in 0..<40 { bus.queue(PoolJob(id: id, probe: probe)) }
        #expect(await poolWait(probe.entered, count: 4))
        scaler.target.withLock { $0 = 1 }
        pool.evaluateScaling()
        #expect(pool.threadCount == 1)
        #expect(pool.metrics.retiringThreadCount == 3)
        for id in 40..<50 { bus.queue(PoolJob(id: id, probe: probe)) }
        probe.open(50)
        await pool.drain()
        let jobs = probe.all.map(\.job)
        #expect(jobs.sorted() == Array(0..<50))
        // Everything dispatched after the shrink went to the one remaining thread.
        let remaining = Set(probe.all.filter { $0.job >= 40 }.map(\.thread))
        #expect(remaining.count == 1)
        #expect(await coreEventually { pool.metrics.retiringThreadCount == 0 })
        #expect(scaler.asked.withLock { $0 } == 1)
        pool.stop()
    }

    @Test("P4: with keyed affinity, growing and shrinking never reorders a key's events")
    func affinityAcrossScaling() async {
        let bus = EventBus(label: "P4-affinity")
        let scaler = ManualScaler(2)
        let balancer = EventPoolKeyedAffinityBalancer { ($0 as? PoolJob)?.key ?? 0 }
        let pool = EventPool<PoolWorker>(capacity: 2, balancer: balancer, scaler: scaler, bus: bus)
        let probe = PoolProbe()
        let perPhase = 5_000
        // On a thread of its own: 20,000 dispatches would hold one of Swift's pool threads, which
        // every other test's tasks need.
        let (next, threadCounts) = await coreOnPlainThread { () -> (Int, [Int]) in
            var next = 0
            var threadCounts: [Int] = []
            for target in [5, 1, 3] {
                for _ in 0..<perPhase {
                    bus.queue(PoolJob(id: next, key: next % 16, probe: probe))
                    next += 1
                }
                scaler.target.withLock { $0 = target }
                pool.evaluateScaling()
                threadCounts.append(pool.threadCount)
            }
            for _ in 0..<perPhase {
                bus.queue(PoolJob(id: next, key: next % 16, probe: probe))
                next += 1
            }
            return (next, threadCounts)
        }
        #expect(threadCounts == [5, 1, 3])
        await pool.drain()
        let records = probe.all
        #expect(records.count == next)
        var lastByKey = [Int](repeating: -1, count: 16)
        var outOfOrder = 0
        for record in records {
            if record.job <= lastByKey[record.key] { outOfOrder += 1 }
            lastByKey[record.key] = record.job
        }
        #expect(outOfOrder == 0)
        #expect(Set(records.map(\.thread)).count > 2)
        pool.stop()
    }

    @Test("P3: a scaler written outside the library is asked periodically from the scheduler")
    func periodicCustomScaler() async {
        let bus = EventBus(label: "P3-scaler")
        let evaluated = DispatchSemaphore(value: 0)
        let pool = EventPool<PoolWorker>(capacity: 2, scaler: SignallingScaler(evaluated: evaluated), bus: bus)
        #expect(await poolWait(evaluated, count: 3))
        #expect(pool.threadCount == 2)
        pool.stop()
    }

    @Test("P3: the periodic scaling check runs while the global concurrent queue is saturated")
    func periodicScalerWithSaturatedGlobalQueue() {
        // Blocks queued ahead of the pool's checks, holding every thread the global queue starts.
        let saturation = GlobalQueueSaturation()
        let bus = EventBus(label: "P3-saturated")
        let evaluated = DispatchSemaphore(value: 0)
        let pool = EventPool<PoolWorker>(capacity: 2, scaler: SignallingScaler(evaluated: evaluated), bus: bus)
        // Synchronous: an async test's own continuation would wait for the saturated queue.
        let deadline = DispatchTime.now() + .seconds(5)
        var evaluations = 0
        while evaluations < 3, evaluated.wait(timeout: deadline) == .success { evaluations += 1 }
        // At once: while the global queue is saturated, every other test's tasks wait too.
        saturation.release()
        pool.stop()
        #expect(evaluations == 3)
    }

    @Test("P4: the dynamic scaler's decisions follow its parameters")
    func dynamicScalerRules() {
        var scaler = EventPoolDynamicScaler(
            minimum: 2, maximum: 6, scaleUpThreshold: 3, window: .seconds(2), idleTimeout: .seconds(10))
        #expect(scaler.initialThreadCount(capacity: 1) == 2)
        #expect(scaler.initialThreadCount(capacity: 9) == 6)
        func metrics(_ pending: [Int]) -> EventPoolMetrics {
            EventPoolMetrics(
                threads: pending.enumerated().map {
                    EventPoolThreadMetrics(id: $0.offset, pending: $0.element, handled: 0)
                })
        }
        let start = DispatchTime.now()
        // At the threshold is not overloaded.
        #expect(scaler.threadCount(for: metrics([3, 3]), at: start) == 2)
        #expect(scaler.threadCount(for: metrics([4, 3]), at: start) == 2)
        #expect(scaler.threadCount(for: metrics([4, 3]), at: later(start, seconds: 1)) == 2)
        // Overloaded for the window: enough threads for the threshold (ceil(20 / 3) = 7), capped at 6.
        #expect(scaler.threadCount(for: metrics([10, 10]), at: later(start, seconds: 2)) == 6)
        // Load that dips resets the window.
        #expect(scaler.threadCount(for: metrics([4, 4, 4]), at: later(start, seconds: 3)) == 3)
        #expect(scaler.threadCount(for: metrics([1, 1, 1]), at: later(start, seconds: 4)) == 3)
        #expect(scaler.threadCount(for: metrics([4, 4, 4]), at: later(start, seconds: 5)) == 3)
        #expect(scaler.threadCount(for: metrics([4, 4, 4]), at: later(start, seconds: 6)) == 3)
        #expect(scaler.threadCount(for: metrics([4, 4, 4]), at: later(start, seconds: 7)) == 4)
        // Idle: one thread per timeout, never below the minimum.
        #expect(scaler.threadCount(for: metrics([0, 0, 0]), at: later(start, seconds: 20)) == 3)
        #expect(scaler.threadCount(for: metrics([0, 0, 0]), at: later(start, seconds: 30)) == 2)
        #expect(scaler.threadCount(for: metrics([0, 0]), at: later(start, seconds: 40)) == 2)
        // Outside the bounds, the bounds win.
        #expect(scaler.threadCount(for: metrics([0]), at: later(start, seconds: 41)) == 2)
        #expect(scaler.threadCount(for: metrics(Array(repeating: 0, count: 8)), at: later(start, seconds: 42)) == 6)
    }
}
