// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

@Suite("Scheduled dispatch (S1–S2)")
struct SchedulingTests {
    @Test("S1: a scheduled event fires from the scheduler's own thread while the main queue is held")
    func firesWithoutTheMainQueue() async {
        let bus = EventBus(label: "S1")
        let arrived = DispatchSemaphore(value: 0)
        let deliveries = CoreRecorder<Delivery>()
        // A synchronous listener runs on the thread that dispatches: the scheduler's.
        let handle = bus.listen(Alarm.self, executeOn: .synchronous) { event, metadata in
            deliveries.append(
                Delivery(
                    name: event.name, metadata: metadata, deliveredAt: .now(), isMainThread: Thread.isMainThread))
            arrived.signal()
        }
        // Hold the main queue (if anything services it at all) until the event has arrived, so the
        // delivery cannot depend on it, as in a server that never runs the main queue.
        let mainHeld = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { mainHeld.wait() }
        // A second ahead: `hasFired` is read right after, and a loaded machine can keep this thread
        // off its core for tens of milliseconds (30 ms ahead once fired before the read).
        let due = DispatchTime.now() + .seconds(1)
        let scheduled = Alarm(name: "wake").scheduleQueue(at: due, on: bus, priority: .highest)
        #expect(!scheduled.hasFired)
        await coreWait(arrived)
        mainHeld.signal()
        let delivery = deliveries.values[0]
        #expect(delivery.name == "wake")
        #expect(!delivery.isMainThread)
        #expect(delivery.deliveredAt >= due, "at or after the due time")
        #expect(delivery.metadata.priority == .highest && delivery.metadata.method == .queue)
        #expect(scheduled.hasFired && !scheduled.isCancelled)
        scheduled.cancel()
        #expect(scheduled.hasFired && !scheduled.isCancelled, "a fired event can no longer be cancelled")
        handle.cancel()
    }

    @Test("S1: scheduled events fire in due order, whatever order they were scheduled in")
    func firesInDueOrder() async {
        let bus = EventBus(label: "S1-order")
        let allArrived = DispatchSemaphore(value: 0)
        let names = CoreRecorder<String>()
        let handle = bus.listen(Alarm.self, executeOn: .synchronous) { event, _ in
            names.append(event.name)
            if names.count == 3 { allArrived.signal() }
        }
        let now = DispatchTime.now()
        Alarm(name: "third").scheduleStack(at: now + .milliseconds(45), on: bus)
        Alarm(name: "first").scheduleQueue(at: now + .milliseconds(15), on: bus)
        Alarm(name: "second").scheduleStack(at: now + .milliseconds(30), on: bus, priority: .low)
        await coreWait(allArrived)
        #expect(names.values == ["first", "second", "third"])
        handle.cancel()
    }

    @Test("S1: an event scheduled in the past fires at once")
    func pastDueFiresAtOnce() async {
        let bus = EventBus(label: "S1-past")
        let arrived = DispatchSemaphore(value: 0)
        let handle = bus.listen(Alarm.self, executeOn: .synchronous) { _, _ in arrived.signal() }
        Alarm(name: "late").scheduleQueue(at: DispatchTime(uptimeNanoseconds: 1), on: bus)
        await coreWait(arrived)
        #expect(bus.statistics.delivered == 1)
        handle.cancel()
    }

    @Test("S2: cancel() before the due time prevents the dispatch")
    func cancelBeforeDue() async {
        let bus = EventBus(label: "S2")
        let arrived = DispatchSemaphore(value: 0)
        let names = CoreRecorder<String>()
        let handle = bus.listen(Alarm.self, executeOn: .synchronous) { event, _ in
            names.append(event.name)
            arrived.signal()
        }
        let now = DispatchTime.now()
        let cancelled = Alarm(name: "cancelled").scheduleQueue(at: now + .milliseconds(20), on: bus)
        // Due after the cancelled one: once it arrives, the cancelled one would have fired too.
        Alarm(name: "kept").scheduleQueue(at: now + .milliseconds(40), on: bus)
        #expect(cancelled.isActive)
        cancelled.cancel()
        #expect(cancelled.isCancelled && !cancelled.hasFired && !cancelled.isActive)
        cancelled.cancel()
        #expect(cancelled.isCancelled && !cancelled.hasFired, "cancelling twice changes nothing")
        await coreWait(arrived)
        #expect(names.values == ["kept"])
        #expect(!cancelled.hasFired)
        handle.cancel()
    }

    @Test("R5: scheduling on a bus that has shut down is refused, counted and reported, as a dispatch is")
    func scheduleAfterShutdown() async {
        let bus = EventBus(label: "S2-after-shutdown")
        let errors = coreCollectErrors(on: bus)
        await bus.shutdown()
        let handle = Alarm(name: "late").schedule(after: .seconds(60), on: bus)
        #expect(handle.isCancelled && !handle.hasFired)
        #expect(bus.statistics.rejected == 1)
        #expect(errors.values == [.busShutDown(bus: "S2-after-shutdown", eventType: String(reflecting: Alarm.self))])
    }

    @Test("R5: events falling due while shutdown() runs are cancelled, or fire and are delivered or refused")
    func dueDuringShutdown() async {
        for round in 0..<5 {
            let bus = EventBus(label: "S2-due-during-shutdown-\(round)")
            let errors = coreCollectErrors(on: bus)
            let delivered = CoreCounter()
            let handle = bus.listen(Alarm.self, executeOn: .synchronous) { _, _ in delivered.increment() }
            let due = DispatchTime.now() + .milliseconds(2)
            let handles = (0..<200).map { index in
                Alarm(name: "\(index)").scheduleQueue(at: due + .microseconds(10 * index), on: bus)
            }
            // Shut down once the first has been delivered, while the others fall due.
            #expect(await coreEventually { delivered.count > 0 })
            await bus.shutdown()
            let fired = handles.filter(\.hasFired).count
            #expect(fired + handles.filter(\.isCancelled).count == 200, "each handle fired or was cancelled")
            // A job that fired just as the bus closed dispatches on its worker: wait for it.
            #expect(await coreEventually { delivered.count + bus.statistics.rejected == fired })
            #expect(bus.statistics.discarded == 0)
            #expect(errors.count == bus.statistics.rejected, "each refusal reported")
            handle.cancel()
        }
    }

    @Test("S1: events due at the same time fire in the order they were scheduled")
    func sameDueTimeInScheduledOrder() async {
        let bus = EventBus(label: "S1-same-time")
        let names = CoreRecorder<String>()
        let arrived = DispatchSemaphore(value: 0)
        let count = 20
        let handle = bus.listen(Alarm.self, executeOn: .synchronous) { event, _ in
            names.append(event.name)
            if names.count == count { arrived.signal() }
        }
        let due = DispatchTime.now() + .milliseconds(50)
        for index in 0..<count { Alarm(name: "\(index)").scheduleQueue(at: due, on: bus) }
        await coreWait(arrived)
        #expect(names.values == (0..<count).map { "\($0)" })
        handle.cancel()
    }
}

extension SchedulingTests {
    struct Alarm: Eventable {
        let name: String
    }

    struct Delivery: Sendable {
        let name: String
        let metadata: EventMetadata
        let deliveredAt: DispatchTime
        let isMainThread: Bool
    }
}
