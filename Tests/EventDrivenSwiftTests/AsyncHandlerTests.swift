// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Synchronization
import Testing

@Suite("A2: async handlers")
struct AsyncHandlerTests {
    private struct Job: Eventable { let value: Int }

    @Test("A2: an async handler runs one event at a time, in dispatch order")
    func serialAndOrdered() async {
        let bus = EventBus(label: #function)
        let seen = CoreRecorder<Int>()
        let probe = OverlapProbe()
        bus.listenAsync(Job.self) { job in
            probe.enter()
            await Task.yield()
            seen.append(job.value)
            probe.leave()
        }
        await coreOnThreads(2) { producer in
            for index in 0..<300 { bus.queue(Job(value: producer * 1_000 + index), priority: .allCases[index % 5]) }
        }
        await bus.drain()
        let values = seen.values
        #expect(values.count == 600)
        #expect(probe.maximumOverlap == 1)
        for producer in 0..<2 {
            let own = values.filter { $0 / 1_000 == producer }
            #expect(own == own.sorted())
        }
    }

    @Test("A3: drain waits until async handlers have finished")
    func drainWaits() async {
        let bus = EventBus(label: #function)
        let finished = Atomic<Int>(0)
        bus.listenAsync(Job.self) { _ in
            for _ in 0..<5 { await Task.yield() }
            finished.add(1, ordering: .relaxed)
        }
        for value in 0..<100 { bus.queue(Job(value: value)) }
        await bus.drain()
        #expect(finished.load(ordering: .relaxed) == 100)
        #expect(bus.statistics.delivered == 100)
    }

    @Test("A2/L8: cancel() stops an async listener")
    func remove() async {
        let bus = EventBus(label: #function)
        let seen = CoreRecorder<Int>()
        let handle = bus.listenAsync(Job.self) { job in seen.append(job.value) }
        bus.queue(Job(value: 1))
        await bus.drain()
        handle.cancel()
        #expect(!handle.isActive)
        #expect(bus.subscriberCount(for: Job.self) == 0)
        bus.queue(Job(value: 2))
        await bus.drain()
        #expect(seen.values == [1])
        #expect(bus.statistics.undelivered == 1)
    }

    @Test("A2/L2: an async listener ends when its owner is freed")
    func ownerReleased() async {
        final class Owner: Sendable {}
        let bus = EventBus(label: #function)
        let seen = CoreRecorder<Int>()
        var owner: Owner? = Owner()
        bus.listenAsync(Job.self, owner: owner) { job in seen.append(job.value) }
        bus.queue(Job(value: 1))
        await bus.drain()
        owner = nil
        bus.queue(Job(value: 2))
        await bus.drain()
        #expect(seen.values == [1])
        #expect(bus.statistics.ownerReleased == 1)
        #expect(bus.subscriberCount(for: Job.self) == 0)
    }

    @Test("A2/D5: an async handler may dispatch, and drain picks those up on the next call")
    func dispatchFromHandler() async {
        let bus = EventBus(label: #function)
        let seen = CoreRecorder<Int>()
        bus.listenAsync(Job.self) { job in
            seen.append(job.value)
            if job.value < 50 { bus.queue(Job(value: job.value + 1)) }
        }
        bus.queue(Job(value: 0))
        for _ in 0..<60 { await bus.drain() }
        #expect(seen.values == Array(0...50))
        // The handler captures the bus: shutdown breaks that cycle, as for any listener.
        await bus.shutdown()
    }

    @Test("A2: a @MainActor handler runs on the main actor, in order")
    func mainActorHandler() async {
        let bus = EventBus(label: #function)
        let seen = CoreRecorder<Int>()
        bus.listenAsync(Job.self) { @MainActor job in
            MainActor.assertIsolated()
            seen.append(job.value)
        }
        for value in 0..<100 { bus.queue(Job(value: value)) }
        await bus.drain()
        #expect(seen.values == Array(0..<100))
    }
}
