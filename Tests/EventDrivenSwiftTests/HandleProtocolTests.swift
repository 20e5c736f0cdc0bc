// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// Issue 25, "one handle type whose verb is cancel()": every registration returns an
/// ``EventSubscription``; the seeds' other verbs are deprecated forwards to it.
@Suite("R6: one handle protocol, one verb")
struct HandleProtocolTests {
    struct Reading: Eventable { let value: Int }
    struct Counting: EventInterceptor {
        let dispatches: CoreCounter
        func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) { dispatches.increment() }
    }

    @Test("listeners, async listeners, channels, states, scheduled events and interceptors stop with cancel()")
    func everyHandleCancels() async {
        let bus = EventBus(label: "handles-cancel")
        let seen = CoreRecorder<String>()
        let dispatches = CoreCounter()
        let numbers = EventChannel<Int>(label: "numbers")
        let mode = EventState<Int>(label: "mode")
        let handles: [any EventSubscription] = [
            bus.listen(Reading.self, executeOn: .synchronous) { event, _ in seen.append("listener \(event.value)") },
            bus.listenAsync(Reading.self) { event in seen.append("async \(event.value)") },
            bus.subscribe(numbers, on: .synchronous) { seen.append("channel \($0)") },
            bus.subscribe(mode, on: .synchronous) { seen.append("state \($0)") },
            Reading(value: 99).schedule(after: .seconds(3_600), on: bus),
            bus.addInterceptor(Counting(dispatches: dispatches)),
        ]
        #expect(handles.allSatisfy { $0.isActive })
        Reading(value: 1).queue(on: bus)
        bus.publish(numbers, 1)
        bus.set(mode, to: 1)
        await bus.drain()
        let before = dispatches.count
        #expect(before > 0)
        for handle in handles { handle.cancel() }
        for handle in handles { handle.cancel() }  // a second cancel does nothing
        #expect(handles.allSatisfy { !$0.isActive })
        Reading(value: 2).queue(on: bus)
        bus.publish(numbers, 2)
        bus.set(mode, to: 2)
        await bus.drain()
        #expect(seen.values.sorted() == ["async 1", "channel 1", "listener 1", "state 1"])
        #expect(dispatches.count == before, "the interceptor saw no delivery after its cancel")
        #expect((handles[4] as? ScheduledEventHandle)?.isCancelled == true)
    }

    @Test("the seeds' verbs still stop their handles: remove(), unsubscribe(), removeEventCallback(_:)")
    func seedVerbs() async {
        let bus = EventBus(label: "handles-seeds")
        let seen = CoreRecorder<String>()
        let numbers = EventChannel<Int>(label: "numbers")
        let listener: (any EventListenerHandling)? = bus.listen(Reading.self, executeOn: .synchronous) { event, _ in
            seen.append("listener \(event.value)")
        }
        let one = bus.subscribe(numbers, on: .synchronous) { seen.append("one \($0)") }
        let two = bus.subscribe(numbers, on: .synchronous) { seen.append("two \($0)") }
        let thread = EventThread(bus: bus)
        let callback = thread.addEventCallback(Reading.self) { event, _ in seen.append("thread \(event.value)") }
        SeedSpellings.remove(listener)
        SeedSpellings.unsubscribe(one)
        SeedSpellings.unsubscribe(two, on: bus)
        SeedSpellings.removeEventCallback(callback, from: thread)
        Reading(value: 1).queue(on: bus)
        bus.publish(numbers, 1)
        await bus.drain()
        #expect(seen.values.isEmpty)
        #expect(listener?.isActive == false && !one.isActive && !two.isActive && !callback.isActive)
        thread.cancel()
    }
}
