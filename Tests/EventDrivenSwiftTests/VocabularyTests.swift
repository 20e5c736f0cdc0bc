// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// The native vocabulary beside the seeds' spellings (issue 14, "One vocabulary").
@Suite("L6/L7/S1/A3: the native vocabulary")
struct VocabularyTests {
    struct Reading: Eventable { let value: Int }
    struct Relay: Eventable { let hops: Int }

    @Test("L6: interestedIn: .youngerThan(Duration) carries its age; old events are expired")
    func youngerThanDuration() async {
        let bus = EventBus(label: "vocabulary-age")
        let seen = CoreRecorder<Int>()
        let arrived = DispatchSemaphore(value: 0)
        let probe = bus.listen(Reading.self, executeOn: .synchronous) { _, _ in arrived.signal() }
        let handle = bus.listen(Reading.self, executeOn: .listenerThread, interestedIn: .youngerThan(.seconds(1))) {
            event, _ in seen.append(event.value)
        }
        // A scheduled event's dispatch time is its due time: one due two seconds ago is already
        // older than a second when it is delivered.
        Reading(value: 1).scheduleQueue(at: .now() - .seconds(2), on: bus)
        await coreWait(arrived)
        Reading(value: 2).queue(on: bus)
        await bus.drain()
        #expect(seen.values == [2])
        #expect(bus.statistics.expired == 1)
        handle.cancel()
        probe.cancel()
    }

    @Test("L7: interestedIn: .custom { event, metadata in … } carries its filter")
    func customClosure() async {
        let bus = EventBus(label: "vocabulary-custom")
        let seen = CoreRecorder<Int>()
        let handle = bus.listen(
            Reading.self, executeOn: .synchronous,
            interestedIn: .custom { (reading: Reading, _) in reading.value.isMultiple(of: 2) }
        ) { event, _ in seen.append(event.value) }
        for value in 0..<6 { Reading(value: value).queue(on: bus) }
        #expect(seen.values == [0, 2, 4])
        #expect(bus.statistics.filtered == 3)
        handle.cancel()
    }

    @Test("S1/S2: schedule(after:) dispatches once the Duration has passed and can be cancelled")
    func scheduleAfterDuration() async {
        let bus = EventBus(label: "vocabulary-schedule")
        let arrived = DispatchSemaphore(value: 0)
        let seen = CoreRecorder<Int>()
        let handle = bus.listen(Reading.self, executeOn: .synchronous) { event, metadata in
            seen.append(event.value)
            #expect(metadata.scheduledTime != nil)
            arrived.signal()
        }
        let scheduledAt = DispatchTime.now()
        Reading(value: 1).schedule(after: .milliseconds(20), on: bus)
        let cancelled = Reading(value: 2).schedule(after: .seconds(3_600), on: bus)
        cancelled.cancel()
        #expect(cancelled.isCancelled)
        await coreWait(arrived)
        #expect(DispatchTime.now().uptimeNanoseconds - scheduledAt.uptimeNanoseconds >= 20_000_000)
        #expect(seen.values == [1])
        handle.cancel()
    }

    @Test("A3: waitUntilQuiet waits through every hop handlers dispatch; drain waits for one")
    func quietAfterEveryHop() async throws {
        let bus = EventBus(label: "vocabulary-quiet")
        let last = CoreRecorder<Int>()
        let handle = bus.listen(Relay.self, executeOn: .listenerThread) { event, _ in
            if event.hops < 50 { Relay(hops: event.hops + 1).queue(on: bus) } else { last.append(event.hops) }
        }
        Relay(hops: 0).queue(on: bus)
        try await bus.waitUntilQuiet(timeout: .seconds(30))
        #expect(last.values == [50])
        #expect(bus.statistics.delivered == 51)
        handle.cancel()
    }

    @Test("A3: waitUntilQuiet reports a bus that stays busy past its timeout")
    func notQuietInTime() async {
        let bus = EventBus(label: "vocabulary-busy")
        let handle = bus.listen(Relay.self, executeOn: .listenerThread) { event, _ in
            Relay(hops: event.hops + 1).queue(on: bus)  // never ends
        }
        Relay(hops: 0).queue(on: bus)
        do {
            try await bus.waitUntilQuiet(timeout: .milliseconds(50))
            Issue.record("an endless relay cannot be quiet")
        } catch {
            #expect(error.bus == "vocabulary-busy")
            #expect(error.description.contains("not quiet"))
        }
        handle.cancel()
        await bus.shutdown(immediately: true)
    }

    @Test("A2: listenAsync is the async handler's own name; the old one-argument listen forwards to it")
    func listenAsyncNamesTheAsyncHandler() async {
        let bus = EventBus(label: "vocabulary-async")
        let seen = CoreRecorder<Int>()
        let handle = bus.listenAsync(Reading.self) { event in seen.append(event.value) }
        for value in 0..<5 { Reading(value: value).queue(on: bus) }
        await bus.drain()
        #expect(seen.values == [0, 1, 2, 3, 4])
        handle.cancel()
        #expect(!handle.isActive)
    }

    @Test("R6: every handle has cancel(); remove() and unsubscribe() stay as the seeds' names")
    func oneCancellationVerb() async {
        let bus = EventBus(label: "vocabulary-cancel")
        let seen = CoreRecorder<Int>()
        let listener = bus.listen(Reading.self, executeOn: .synchronous) { event, _ in seen.append(event.value) }
        let channel = EventChannel<Int>(label: "numbers")
        let subscription = bus.subscribe(channel, on: .synchronous) { seen.append($0 * 100) }
        Reading(value: 1).queue(on: bus)
        bus.publish(channel, 2)
        listener.cancel()
        subscription.cancel()
        Reading(value: 3).queue(on: bus)
        bus.publish(channel, 4)
        #expect(seen.values == [1, 200])
        #expect(!listener.isActive && !subscription.isActive)
    }
}
