// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization
import Testing

/// A balancer written outside the library: always the last thread.
private final class LastThreadBalancer: EventPoolBalancing {
    let calls = LockedValue<[UInt64]>([])

    func selectMember(for event: any Eventable, metadata: EventMetadata, among members: EventPoolMembers) -> Int {
        calls.withLock { $0.append(members.generation) }
        return members.index(before: members.endIndex)
    }
}

/// A balancer that returns out-of-range positions; the pool must not crash.
private struct WildBalancer: EventPoolBalancing {
    func selectMember(for event: any Eventable, metadata: EventMetadata, among members: EventPoolMembers) -> Int {
        guard let job = event as? PoolJob else { return 0 }
        return job.id % 2 == 0 ? -job.id * 7 : job.id * 1_000 + 3
    }
}

@Suite("EventPool balancers")
struct PoolBalancerTests {
    @Test("P2: round robin spreads 20 events evenly over 5 threads")
    func roundRobinEven() async {
        let bus = EventBus(label: "P2-rr")
        let pool = EventPool<PoolWorker>(capacity: 5, balancer: EventPoolRoundRobinBalancer(), bus: bus)
        let probe = PoolProbe()
        for id in 0..<20 { bus.queue(PoolJob(id: id, probe: probe)) }
        await pool.drain()
        #expect(probe.perThread == [4, 4, 4, 4, 4])
        // Consecutive events go to consecutive threads.
        let threads = (0..<10).map { probe.thread(of: $0) }
        #expect(threads[0] == threads[5] && threads[1] == threads[6])
        #expect(Set(threads[0..<5]).count == 5)
        #expect(await coreEventually { pool.metrics.handledEvents == 20 })
        #expect(pool.metrics.threads.map(\.handled) == [4, 4, 4, 4, 4])
        pool.stop()
    }

    @Test("P2: round robin survives ten times its capacity (the original crashed after capacity)")
    func roundRobinManyEvents() async {
        let bus = EventBus(label: "P2-rr-many")
        let pool = EventPool<PoolWorker>(capacity: 5, bus: bus)
        let probe = PoolProbe()
        for id in 0..<50 { bus.queue(PoolJob(id: id, probe: probe)) }
        await pool.drain()
        #expect(probe.perThread == [10, 10, 10, 10, 10])
        pool.stop()
    }

    @Test("P2: lowest load picks the least loaded thread, not the busiest")
    func lowestLoad() async {
        let bus = EventBus(label: "P2-lowest")
        let gates = Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, DispatchSemaphore(value: 0)) })
        let probe = PoolProbe(jobGates: gates)
        let pool = EventPool<PoolWorker>(capacity: 3, balancer: EventPoolLowestLoadBalancer(), bus: bus)
        // Jobs 0, 1, 2 occupy one thread each (ties go to the first idle thread).
        for id in 0..<3 {
            bus.queue(PoolJob(id: id, probe: probe))
            #expect(await poolWait(probe.entered))
        }
        #expect(Set((0..<3).map { probe.thread(of: $0) }).count == 3)
        // Jobs 3...6 queue behind them: loads become 3, 2, 2.
        for id in 3..<7 { bus.queue(PoolJob(id: id, probe: probe)) }
        #expect(pool.metrics.threads.map(\.pending) == [3, 2, 2])
        // Finish job 1: its thread starts job 4 and blocks there, so loads become 3, 1, 2.
        gates[1]!.signal()
        #expect(await poolWait(probe.entered))
        #expect(probe.thread(of: 4) == probe.thread(of: 1))
        #expect(pool.metrics.threads.map(\.pending) == [3, 1, 2])
        bus.queue(PoolJob(id: 7, probe: probe))
        for gate in gates.values { gate.signal() }
        await pool.drain()
        #expect(probe.thread(of: 7) == probe.thread(of: 1))
        #expect(probe.all.count == 8)
        pool.stop()
    }

    @Test("P2: keyed affinity keeps each key's order across 100,000 events and 16 keys")
    func affinityOrder() async {
        let bus = EventBus(label: "P2-affinity")
        let balancer = EventPoolKeyedAffinityBalancer { ($0 as? PoolJob)?.key ?? 0 }
        let pool = EventPool<PoolWorker>(capacity: 4, balancer: balancer, bus: bus)
        let probe = PoolProbe()
        let total = 100_000
        await coreOnPlainThread { for id in 0..<total { bus.queue(PoolJob(id: id, key: id % 16, probe: probe)) } }
        await pool.drain()
        let records = probe.all
        #expect(records.count == total)
        var lastByKey = [Int](repeating: -1, count: 16)
        var threadByKey: [Int: ObjectIdentifier] = [:]
        var outOfOrder = 0
        var strayed = 0
        for record in records.sorted(by: { $0.job < $1.job }) where threadByKey[record.key] == nil {
            threadByKey[record.key] = record.thread
        }
        // Records are appended in handling order; per key that must be dispatch order, on one thread.
        for record in records {
            if record.job <= lastByKey[record.key] { outOfOrder += 1 }
            lastByKey[record.key] = record.job
            if threadByKey[record.key] != record.thread { strayed += 1 }
        }
        #expect(outOfOrder == 0)
        #expect(strayed == 0)
        #expect(Set(threadByKey.values).count > 1)
        pool.stop()
    }

    @Test("P3: a balancer written outside the library chooses the thread")
    func customBalancer() async {
        let bus = EventBus(label: "P3-balancer")
        let balancer = LastThreadBalancer()
        let pool = EventPool<PoolWorker>(capacity: 3, balancer: balancer, bus: bus)
        let probe = PoolProbe()
        for id in 0..<9 { bus.queue(PoolJob(id: id, probe: probe)) }
        await pool.drain()
        #expect(probe.perThread == [9])
        #expect(balancer.calls.withLock { $0.count } == 9)
        pool.stop()
    }

    @Test("P3: positions out of range from a custom balancer never crash and lose nothing")
    func wildBalancer() async {
        let bus = EventBus(label: "P3-wild")
        let pool = EventPool<PoolWorker>(capacity: 3, balancer: WildBalancer(), bus: bus)
        let probe = PoolProbe()
        for id in 0..<30 { bus.queue(PoolJob(id: id, probe: probe)) }
        await pool.drain()
        #expect(probe.all.map(\.job).sorted() == Array(0..<30))
        pool.stop()
    }
}
