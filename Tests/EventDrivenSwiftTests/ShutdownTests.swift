// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Synchronization
import Testing

@Suite("R5: shutdown")
struct ShutdownTests {
    private struct Work: Eventable { let value: Int }

    @Test("R5: graceful shutdown delivers what is pending, then rejects and reports dispatches")
    func graceful() async {
        let bus = EventBus(label: #function)
        let errors = coreCollectErrors(on: bus)
        let gate = CoreGate()
        let seen = CoreRecorder<Int>()
        bus.listen(Work.self, executeOn: .listenerThread) { work, _ in
            if work.value == 0 { gate.block() }
            seen.append(work.value)
        }
        bus.queue(Work(value: 0))
        await gate.waitUntilEntered()
        for value in 1..<100 { bus.queue(Work(value: value)) }
        let shutdown = Task { await bus.shutdown() }
        gate.open()
        await shutdown.value
        #expect(seen.values == Array(0..<100))
        #expect(bus.isShutDown)
        bus.queue(Work(value: 100))
        #expect(seen.count == 100)
        #expect(bus.statistics.rejected == 1)
        #expect(errors.values == [.busShutDown(bus: bus.label, eventType: String(reflecting: Work.self))])
        #expect(bus.subscriberCount(for: Work.self) == 0)
    }

    @Test("R5: immediate shutdown finishes the running handler and discards the rest, counted")
    func immediate() async {
        let bus = EventBus(label: #function)
        let gate = CoreGate()
        let seen = CoreRecorder<Int>()
        bus.listen(Work.self, executeOn: .listenerThread) { work, _ in
            if work.value == 0 { gate.block() }
            seen.append(work.value)
        }
        let thread = EventThread(bus: bus)
        thread.addEventCallback(Work.self) { (_: Work, _: EventMetadata) in }
        bus.queue(Work(value: 0))
        await gate.waitUntilEntered()
        for value in 1..<50 { bus.queue(Work(value: value)) }
        // The shutdown waits for the running handler, whose outcome it counts: let the handler
        // go once the shutdown has discarded what was pending.
        async let shutdown: Void = bus.shutdown(immediately: true)
        #expect(await coreEventually { bus.statistics.discarded >= 49 })
        gate.open()
        await shutdown
        // Drain after shutdown returns at once, even with a receiver closed mid-batch.
        await bus.drain()
        // Final when the shutdown returned.
        #expect(bus.statistics.delivered + bus.statistics.discarded == 100)
        #expect(seen.values == [0])
        let stats = bus.statistics
        #expect(stats.discarded >= 49)
        thread.cancel()
    }

    @Test("R5: shutdown cancels scheduled dispatches")
    func cancelsTimers() async {
        let bus = EventBus(label: #function)
        let handle = Work(value: 1).scheduleQueue(at: .now() + .seconds(3_600), on: bus)
        await bus.shutdown()
        #expect(handle.isCancelled)
        let later = Work(value: 2).scheduleQueue(at: .now() + .seconds(3_600), on: bus)
        #expect(later.isCancelled)
    }

    @Test("R5: shutdown ends async listeners and streams, and stops EventThreads' deliveries")
    func endsEverything() async {
        let bus = EventBus(label: #function)
        let asyncSeen = Atomic<Int>(0)
        bus.listenAsync(Work.self) { _ in asyncSeen.add(1, ordering: .relaxed) }
        let thread = EventThread(bus: bus)
        let threadSeen = CoreRecorder<Int>()
        thread.addEventCallback(Work.self) { (work: Work, _: EventMetadata) in threadSeen.append(work.value) }
        let stream = bus.events(of: Work.self)
        let consumer = Task {
            var count = 0
            for await _ in stream { count += 1 }
            return count
        }
        for value in 0..<20 { bus.queue(Work(value: value)) }
        await bus.shutdown()
        #expect(await consumer.value == 20)
        #expect(asyncSeen.load(ordering: .relaxed) == 20)
        #expect(threadSeen.count == 20)
        bus.queue(Work(value: 99))
        #expect(threadSeen.count == 20)
        #expect(thread.pendingEventCount == 0)
        thread.cancel()
    }

    @Test("R5: shutdown twice, concurrently, is harmless")
    func twice() async {
        let bus = EventBus(label: #function)
        bus.listen(Work.self, executeOn: .listenerThread) { _, _ in }
        for value in 0..<10 { bus.queue(Work(value: value)) }
        async let first: Void = bus.shutdown()
        async let second: Void = bus.shutdown(immediately: true)
        _ = await (first, second)
        #expect(bus.isShutDown)
        await bus.drain()
    }
}
