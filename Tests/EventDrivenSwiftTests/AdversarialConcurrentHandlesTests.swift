// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: handles from many threads")
struct AdversarialConcurrentHandlesTests {
    @Test(
        "R6: 8 threads cancel the same 200 listener handles at once while a producer dispatches; again after shutdown")
    func concurrentCancel() async {
        let bus = EventBus(label: "adv-concurrentCancel")
        let letters = bus.deadLetters()
        let calls = CoreCounter()
        let handles = (0..<200).map { index in
            bus.listen(AdvTick.self, executeOn: index.isMultiple(of: 2) ? .listenerThread : .taskThread) { _, _ in
                calls.increment()
            }
        }
        let produced = CoreCounter()
        await coreOnThreads(9) { thread in
            if thread == 8 {
                for n in 0..<500 {
                    bus.queue(AdvTick(n: n))
                    produced.increment()
                }
            } else {
                for handle in handles.shuffled() { handle.cancel() }
            }
        }
        #expect(handles.allSatisfy { !$0.isActive })
        bus.queue(AdvTick(n: -1))  // nobody left
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == calls.count)
        #expect(ledger.statistics.undelivered >= 1, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
        await coreOnThreads(4) { _ in for handle in handles { handle.cancel() } }
        #expect(bus.statistics == ledger.statistics)
    }

    @Test("S2: a scheduled event cancelled from 8 threads at once never fires; a sentinel due at the same time does")
    func scheduledConcurrentCancel() async {
        let bus = EventBus(label: "adv-schedCancel")
        let stream = bus.events(of: AdvTick.self)
        // Due in 2 s: the 8 threads must start and cancel before it, on a loaded machine too (30 ms
        // was not enough for that in one run beside the whole suite).
        let victim = AdvTick(n: 1).schedule(after: .seconds(2), on: bus)
        let sentinel = AdvTick(n: 2).schedule(after: .seconds(2), on: bus)
        await coreOnThreads(8) { _ in victim.cancel() }
        #expect(victim.isCancelled && !victim.isActive && !victim.hasFired)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.n == 2)
        #expect(sentinel.hasFired && !sentinel.isCancelled && !sentinel.isActive)
        sentinel.cancel()  // after it fired: a no-op
        #expect(sentinel.hasFired && !sentinel.isCancelled)
        await bus.shutdown()
        #expect(await iterator.next() == nil)
        #expect(bus.statistics.delivered == 1, "\(bus.statistics)")
        victim.cancel()  // after shutdown
    }

    @Test("S1: zero, negative and past schedules fire at once; cancelling them after they fired changes nothing")
    func scheduleNowOrPast() async {
        let bus = EventBus(label: "adv-schedPast")
        let stream = bus.events(of: AdvTick.self)
        let handles = [
            AdvTick(n: 0).schedule(after: .zero, on: bus),
            AdvTick(n: 1).schedule(after: .seconds(-5), on: bus),
            AdvTick(n: 2).schedule(after: .nanoseconds(Int64.min), on: bus),
            AdvTick(n: 3).scheduleQueue(at: DispatchTime(uptimeNanoseconds: 1), on: bus),
        ]
        var seen: [Int] = []
        for await tick in stream {
            seen.append(tick.n)
            if seen.count == 4 { break }
        }
        #expect(Set(seen) == [0, 1, 2, 3])
        for handle in handles {
            handle.cancel()
            #expect(handle.hasFired && !handle.isCancelled && !handle.isActive)
        }
        await bus.shutdown()
        #expect(bus.statistics.delivered == 4, "\(bus.statistics)")
    }

    @Test("S1/S2: huge delays neither trap nor fire early; a near event still fires after them; shutdown cancels them")
    func scheduleHuge() async {
        let bus = EventBus(label: "adv-schedHuge")
        let stream = bus.events(of: AdvTick.self)
        let huge = [
            AdvTick(n: 0).schedule(after: .seconds(Int64.max), on: bus),
            AdvTick(n: 1).scheduleStack(
                after: Duration(secondsComponent: Int64.max, attosecondsComponent: 999_999_999_999_999_999), on: bus),
            AdvTick(n: 2).scheduleQueue(at: .distantFuture, on: bus),
            AdvTick(n: 3).scheduleQueue(at: DispatchTime(uptimeNanoseconds: UInt64.max - 1), on: bus),
        ]
        let near = AdvTick(n: 9).schedule(after: .milliseconds(20), on: bus)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.n == 9)
        #expect(near.hasFired)
        for handle in huge { #expect(handle.isActive && !handle.hasFired) }
        await bus.shutdown()
        for handle in huge {
            #expect(!handle.isActive && !handle.hasFired, "due \(handle.dueTime.uptimeNanoseconds)")
            handle.cancel()
        }
        #expect(await iterator.next() == nil)
        let after = AdvTick(n: 5).schedule(after: .seconds(Int64.max), on: bus)
        #expect(after.isCancelled)
        #expect(bus.statistics.rejected == 1)
    }
}
