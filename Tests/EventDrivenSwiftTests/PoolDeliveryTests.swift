// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization
import Testing

/// An event type only these tests dispatch on `EventCentral.shared`.
private struct PoolCentralJob: Eventable {
    let id: Int
    let probe: PoolProbe
}

private final class PoolCentralWorker: EventThread, @unchecked Sendable {  // no state of its own beyond EventThread's
    override func registerEventListeners() {
        addEventCallback(PoolCentralJob.self) { job, _ in
            job.probe.handle(PoolJob(id: job.id, probe: job.probe), on: self)
        }
    }
}

/// Counts the instances alive, to prove a stopped pool frees its threads.
private final class PoolTrackedWorker: EventThread, @unchecked Sendable {  // `alive` is a LockedValue
    static let alive = LockedValue<[Weak]>([])

    struct Weak: @unchecked Sendable {  // read only under `alive`'s lock
        weak var thread: PoolTrackedWorker?
    }

    required init(bus: EventBus) {
        super.init(bus: bus)
        Self.alive.withLock { $0.append(Weak(thread: self)) }
    }

    override func registerEventListeners() {
        addEventCallback(PoolJob.self) { job, _ in job.probe.handle(job, on: self) }
    }
}

/// A trivially copyable event of one word: the pool's threads run its entries in place.
private struct PoolTick: Eventable {
    let id: Int
}

/// Two callbacks for `PoolTick`, recording which one saw which event.
private final class PoolTickWorker: EventThread, @unchecked Sendable {  // `seen` is a LockedValue
    static let seen = LockedValue<[String]>([])

    override func registerEventListeners() {
        addEventCallback(PoolTick.self) { tick, _ in Self.seen.withLock { $0.append("a\(tick.id)") } }
        addEventCallback(PoolTick.self) { tick, _ in Self.seen.withLock { $0.append("b\(tick.id)") } }
    }
}

@Suite("EventPool delivery")
struct PoolDeliveryTests {
    @Test("P1: a trivially copyable event reaches one thread intact, once for each of its callbacks")
    func inlineEventsReachEveryCallback() async {
        let bus = EventBus(label: "P1-inline")
        let pool = EventPool<PoolTickWorker>(capacity: 2, bus: bus)
        PoolTickWorker.seen.withLock { $0.removeAll() }
        for id in 0..<100 { bus.queue(PoolTick(id: id)) }
        await pool.drain()
        let seen = PoolTickWorker.seen.withLock { $0 }
        #expect(seen.filter { $0.hasPrefix("a") }.sorted() == (0..<100).map { "a\($0)" }.sorted())
        #expect(seen.filter { $0.hasPrefix("b") }.sorted() == (0..<100).map { "b\($0)" }.sorted())
        let order = (0..<100).allSatisfy { id in
            (seen.firstIndex(of: "a\(id)") ?? .max) < (seen.firstIndex(of: "b\(id)") ?? .min)
        }
        #expect(order, "a thread runs its two callbacks for an event in registration order")
        #expect(bus.statistics.delivered == 200)
        pool.stop()
    }

    @Test("P1: five threads run five blocked events at the same time")
    func fiveAtOnce() async {
        let bus = EventBus(label: "P1-concurrent")
        let pool = EventPool<PoolWorker>(capacity: 5, bus: bus)
        let probe = PoolProbe(blocking: true)
        for id in 0..<5 { bus.queue(PoolJob(id: id, probe: probe)) }
        // All five handlers must be inside the gate before any of them may leave it.
        let allInside = await poolWait(probe.entered, count: 5)
        #expect(allInside)
        #expect(probe.concurrency == 5)
        probe.open(5)
        await pool.drain()
        #expect(probe.all.count == 5)
        #expect(Set(probe.all.map(\.thread)).count == 5)
        pool.stop()
    }

    @Test("P1: every event reaches exactly one thread")
    func exactlyOnce() async {
        let bus = EventBus(label: "P1-once")
        let pool = EventPool<PoolWorker>(capacity: 3, bus: bus)
        let probe = PoolProbe()
        for id in 0..<300 { bus.queue(PoolJob(id: id, probe: probe)) }
        // The bus's own drain waits for the pool's threads.
        await bus.drain()
        #expect(probe.all.map(\.job).sorted() == Array(0..<300))
        #expect(bus.subscriberCount(for: PoolJob.self) == 1)
        pool.stop()
    }

    @Test("P1: a pool works on EventCentral.shared")
    func central() async {
        let pool = EventPool<PoolCentralWorker>(capacity: 2)
        let probe = PoolProbe()
        for id in 0..<20 { PoolCentralJob(id: id, probe: probe).queue() }
        await pool.drain()
        #expect(probe.all.map(\.job).sorted() == Array(0..<20))
        #expect(probe.perThread == [10, 10])
        pool.stop()
        #expect(EventCentral.shared.subscriberCount(for: PoolCentralJob.self) == 0)
    }

    @Test("P1: stop(draining: true) handles everything accepted; the pool and its threads are freed")
    func stopDrainsAndFrees() async {
        let bus = EventBus(label: "P1-free")
        let probe = PoolProbe()
        weak var weakPool: EventPool<PoolTrackedWorker>?
        do {
            let pool = EventPool<PoolTrackedWorker>(capacity: 3, bus: bus)
            weakPool = pool
            for id in 0..<60 { bus.queue(PoolJob(id: id, probe: probe)) }
            let discarded = pool.stop(draining: true)
            #expect(discarded == 0)
            #expect(pool.isStopped)
        }
        #expect(probe.all.count == 60)
        #expect(weakPool == nil)
        #expect(bus.subscriberCount(for: PoolJob.self) == 0)
        let alive = PoolTrackedWorker.alive.withLock { $0.filter { $0.thread != nil }.count }
        #expect(alive == 0)
        // After the stop, events find no receiver and are counted, not lost silently.
        let before = bus.statistics.undelivered
        bus.queue(PoolJob(id: 99, probe: probe))
        #expect(bus.statistics.undelivered == before + 1)
    }

    @Test("P1: stop() without draining discards what waits and counts every event")
    func stopDiscards() async {
        let bus = EventBus(label: "P1-discard")
        let letters = bus.deadLetters()
        let pool = EventPool<PoolWorker>(capacity: 1, bus: bus)
        let probe = PoolProbe(blocking: true)
        for id in 0..<10 { bus.queue(PoolJob(id: id, probe: probe)) }
        #expect(await poolWait(probe.entered))
        // Stop waits for the job in progress; the gate opens once stop has closed the thread's
        // mailbox, which the bus statistics announce.
        let discarded = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            // Not the global queue: Swift's tasks run there.
            DispatchQueue(label: "test-stop").async { continuation.resume(returning: pool.stop()) }
            Task {
                _ = await coreEventually { bus.statistics.discarded > 0 }
                probe.open(10)
            }
        }
        #expect(discarded == 9)
        #expect(probe.all.count == 1)
        #expect(bus.statistics.discarded == 9)
        await bus.shutdown()
        var discardedLetters = 0
        for await letter in letters where letter.reason == .discarded { discardedLetters += 1 }
        #expect(discardedLetters == 9, "R4: every discarded event is a dead letter")
    }

    @Test("O: a pool's backlog counts in pendingDeliveries() and in waitUntilQuiet's error")
    func poolBacklogIsPending() async {
        let bus = EventBus(label: "pool-pending")
        let probe = PoolProbe(blocking: true)
        let pool = EventPool<PoolWorker>(capacity: 1, bus: bus)
        for id in 0..<51 { bus.queue(PoolJob(id: id, probe: probe)) }
        #expect(await poolWait(probe.entered))
        let pending = bus.pendingDeliveries()[.pool] ?? 0
        #expect(pending >= 50, "\(bus.pendingDeliveries())")
        let error = await #expect(throws: EventBusNotQuietError.self) {
            try await bus.waitUntilQuiet(timeout: .milliseconds(20))
        }
        #expect((error?.pendingDeliveries ?? 0) >= 50)
        probe.open(51)
        await bus.shutdown()
        _ = pool
    }
}
