// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: scheduled dispatch")
struct AdversarialSchedulingTests {
    @Test("S1: events due at the same time fire in scheduling order, whatever their method and priority")
    func equalDueTimesMixedMethodsAndPriorities() async {
        let bus = EventBus(label: "p2-equalDue")
        let stream = bus.eventsWithMetadata(of: P2Tick.self)
        let due = DispatchTime.now() + .milliseconds(40)
        let priorities: [EventPriority] = [.lowest, .highest, .normal, .low, .high]
        var handles: [ScheduledEventHandle] = []
        for n in 0..<100 {
            let priority = priorities[n % priorities.count]
            handles.append(
                n % 2 == 0
                    ? P2Tick(n: n).scheduleQueue(at: due, on: bus, priority: priority)
                    : P2Tick(n: n).scheduleStack(at: due, on: bus, priority: priority))
        }
        var seen: [Int] = []
        var methods: [EventDispatchMethod] = []
        for await (tick, metadata) in stream {
            seen.append(tick.n)
            methods.append(metadata.method)
            if seen.count == 100 { break }
        }
        #expect(seen == Array(0..<100))
        #expect(methods == (0..<100).map { $0 % 2 == 0 ? EventDispatchMethod.queue : .stack })
        #expect(handles.allSatisfy { $0.hasFired })
        await bus.shutdown()
    }

    @Test("E3/S1: a scheduled event's metadata: dispatch time is its due time, scheduled time is when it was scheduled")
    func scheduledMetadata() async {
        let bus = EventBus(label: "p2-schedMeta")
        let stream = bus.eventsWithMetadata(of: P2Tick.self)
        let before = DispatchTime.now()
        let due = before + .milliseconds(20)
        let stacked = P2Tick(n: 1).scheduleStack(at: due, on: bus, priority: .high)
        let after = P2Tick(n: 2).schedule(after: .milliseconds(30), on: bus, priority: .lowest)
        var got: [(P2Tick, EventMetadata)] = []
        for await pair in stream {
            got.append(pair)
            if got.count == 2 { break }
        }
        #expect(got.map(\.0.n) == [1, 2])
        let first = got[0].1
        #expect(first.method == .stack && first.priority == .high)
        #expect(first.dispatchTime == stacked.dueTime)
        #expect(first.scheduledTime != nil)
        if let scheduled = first.scheduledTime {
            #expect(scheduled >= before && scheduled <= due)
        }
        let second = got[1].1
        #expect(second.method == .queue && second.priority == .lowest)
        #expect(second.dispatchTime == after.dueTime)
        await bus.shutdown()
    }

    @Test("R5/S2: shutdown cancels pending scheduled dispatches: their handles say cancelled; nothing fires later")
    func shutdownCancelsScheduled() async {
        for immediately in [false, true] {
            let bus = EventBus(label: "p2-schedShut-\(immediately)")
            let seen = CoreCounter()
            let handle = bus.listen(P2Tick.self, executeOn: .synchronous) { _, _ in seen.increment() }
            // Due in 1 s, so that the shutdown comes first on a loaded machine too.
            let scheduledAt = DispatchTime.now()
            let pending = [
                P2Tick(n: 0).schedule(after: .seconds(1), on: bus),
                P2Tick(n: 1).scheduleStack(after: .seconds(3_600), on: bus),
                P2Tick(n: 2).scheduleQueue(at: .distantFuture, on: bus),
            ]
            await bus.shutdown(immediately: immediately)
            for scheduled in pending {
                #expect(scheduled.isCancelled, "immediately: \(immediately), \(scheduled)")
                #expect(!scheduled.isActive && !scheduled.hasFired)
            }
            // The 1 s one must not fire after all (its due time passes in the meantime).
            let probe = bus.events(of: P2Other.self)
            var iterator = probe.makeAsyncIterator()
            #expect(await iterator.next() == nil)
            let late = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: scheduledAt + .milliseconds(1_100)) { late.signal() }
            await coreWait(late)
            #expect(seen.count == 0)
            #expect(bus.statistics.rejected == 0, "\(bus.statistics)")
            handle.cancel()
        }
    }

    @Test("W1/S1: consumers receive scheduled events, on the scheduler's worker, counted as deliveries")
    func consumersGetScheduledEvents() async throws {
        let bus = EventBus(label: "p2-schedConsumer")
        let consumer = P2Consumer([P2Tick.self])
        #expect(bus.register(consumer))
        let handles = (0..<3).map { P2Tick(n: $0).schedule(after: .milliseconds(5 * $0), on: bus) }
        #expect(await coreEventually { consumer.seen.count == 3 })
        #expect(consumer.seen.values == ["tick0", "tick1", "tick2"])
        #expect(handles.allSatisfy { $0.hasFired })
        await bus.shutdown()
        #expect(bus.statistics.delivered == 3 && bus.statistics.undelivered == 0, "\(bus.statistics)")
    }

    @Test(
        "S2/R1: cancelling scheduled events as they fall due: each ends fired or cancelled, and fired ones are delivered"
    )
    func cancelRacingFire() async throws {
        let bus = EventBus(label: "p2-cancelRace")
        let seen = CoreRecorder<Int>()
        let handle = bus.listen(P2Tick.self, executeOn: .synchronous) { tick, _ in seen.append(tick.n) }
        let due = DispatchTime.now() + .milliseconds(15)
        let handles = (0..<400).map { P2Tick(n: $0).scheduleQueue(at: due + .microseconds($0 * 10), on: bus) }
        let shared = handles
        await coreOnThreads(4) { index in
            let spin = DispatchTime.now() + .milliseconds(15)
            while DispatchTime.now() < spin {}
            for (position, scheduled) in shared.enumerated() where position % 4 == index { scheduled.cancel() }
        }
        for scheduled in handles {
            #expect(scheduled.hasFired != scheduled.isCancelled, "\(scheduled)")
        }
        // Everything is due within 20 ms; wait until the fired ones are all seen.
        let fired = Set(handles.enumerated().filter { $0.element.hasFired }.map(\.offset))
        #expect(await coreEventually { seen.count >= fired.count })
        await bus.shutdown()
        #expect(Set(seen.values) == fired, "fired \(fired.count), seen \(seen.count)")
        #expect(seen.count == fired.count)
        #expect(bus.statistics.delivered == fired.count, "\(bus.statistics)")
        handle.cancel()
    }

    @Test(
        "A3: a scheduled event far in the future is not 'pending': drain and waitUntilQuiet return, and it still fires later if due"
    )
    func quietWithScheduledPending() async throws {
        let bus = EventBus(label: "p2-quietScheduled")
        let far = P2Tick(n: 1).scheduleQueue(at: .distantFuture, on: bus)
        let hour = P2Tick(n: 2).schedule(after: .seconds(3_600), on: bus)
        await bus.drain()
        try await bus.waitUntilQuiet(timeout: .seconds(1))
        #expect(far.isActive && hour.isActive)
        await bus.shutdown()
        #expect(far.isCancelled && hour.isCancelled, "\(far) \(hour)")
    }

    @Test("R5/S1: 2,000 past-due events scheduled after shutdown: each handle is cancelled and each is rejected once")
    func pastDueScheduledAfterShutdown() async {
        let bus = EventBus(label: "p2-pastAfterShut")
        let errors = coreCollectErrors(on: bus)
        await bus.shutdown()
        let handles = (0..<2_000).map { P2Tick(n: $0).scheduleQueue(at: DispatchTime(uptimeNanoseconds: 1), on: bus) }
        let fired = handles.filter { $0.hasFired }.count
        #expect(handles.allSatisfy { $0.isCancelled }, "\(fired) of 2,000 handles say they fired")
        #expect(await coreEventually { bus.statistics.rejected >= 2_000 })
        #expect(bus.statistics.rejected == 2_000, "\(bus.statistics)")
        #expect(errors.count == 2_000)
    }
}
