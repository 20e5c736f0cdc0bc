// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import EventDrivenSwiftTesting
import Testing

@Suite("K1: EventRecorder")
struct EventRecorderTests {
    @Test("records every event of its type with its metadata, before the dispatch returns")
    func recordsWithMetadata() async {
        let bus = EventBus(label: "recorder.metadata")
        let readings = EventRecorder(of: Reading.self, on: bus)
        bus.listen(Reading.self, executeOn: .listenerThread) { _, _ in }
        Reading(celsius: 1).queue(on: bus, priority: .high)
        Reading(celsius: 2).stack(on: bus)
        Unrecorded().queue(on: bus)
        #expect(readings.events == [Reading(celsius: 1), Reading(celsius: 2)])
        #expect(readings.metadata.map(\.priority) == [.high, .normal])
        #expect(readings.metadata.map(\.method) == [.queue, .stack])
        #expect(readings.records.map(\.event) == readings.events)
        #expect(readings.count == 2)
        #expect(readings.last == Reading(celsius: 2))
        await bus.shutdown()
    }

    @Test("records only what is dispatched after it is created, and nothing after stop()")
    func recordsFromCreationUntilStop() async {
        let bus = EventBus(label: "recorder.window")
        Reading(celsius: 0).queue(on: bus)
        let readings = bus.record(Reading.self)
        #expect(readings.isEmpty)
        #expect(readings.isRecording)
        Reading(celsius: 1).queue(on: bus)
        readings.stop()
        Reading(celsius: 2).queue(on: bus)
        #expect(readings.events == [Reading(celsius: 1)])
        #expect(!readings.isRecording)
        #expect(bus.subscriberCount(for: Reading.self) == 0)
        await bus.shutdown()
    }

    @Test("next() returns the events one by one, waiting for those not dispatched yet")
    func nextReturnsInTurn() async throws {
        let bus = EventBus(label: "recorder.next")
        let readings = bus.record(Reading.self)
        Reading(celsius: 1).queue(on: bus)
        #expect(try await readings.next() == Reading(celsius: 1))
        async let second = readings.next()
        Task.detached { Reading(celsius: 2).queue(on: bus) }
        #expect(try await second == Reading(celsius: 2))
        Reading(celsius: 3).queue(on: bus, priority: .low)
        let third = try await readings.nextRecord()
        #expect(third.event == Reading(celsius: 3))
        #expect(third.metadata.priority == .low)
        await bus.shutdown()
    }

    @Test("waitFor(count:) returns the first count events once they arrived from any threads")
    func waitForCount() async throws {
        let bus = EventBus(label: "recorder.waitFor")
        let readings = bus.record(Reading.self)
        for producer in 0..<4 {
            Task.detached {
                for value in 0..<25 { Reading(celsius: Float(producer * 100 + value)).queue(on: bus) }
            }
        }
        let first = try await readings.waitFor(count: 100)
        #expect(first.count == 100)
        #expect(Set(first.map(\.celsius)).count == 100)
        await bus.shutdown()
    }

    @Test("a wait that times out throws EventRecorderTimeout saying how many arrived")
    func timeoutSaysHowMany() async {
        let bus = EventBus(label: "recorder.timeout")
        let readings = bus.record(Reading.self)
        Reading(celsius: 1).queue(on: bus)
        Reading(celsius: 2).queue(on: bus)
        let error = await #expect(throws: EventRecorderTimeout.self) {
            try await readings.waitFor(count: 3, timeout: .milliseconds(20))
        }
        #expect(error?.expected == 3)
        #expect(error?.received == 2)
        #expect(error?.eventType.hasSuffix("Reading") == true)
        #expect(error?.description.contains("waiting for 3 events of") == true)
        #expect(error?.description.hasSuffix("2 arrived") == true)
        await bus.shutdown()
    }

    @Test("a next() that timed out leaves its event to the next call")
    func failedNextKeepsItsPlace() async throws {
        let bus = EventBus(label: "recorder.retry")
        let readings = bus.record(Reading.self)
        await #expect(
            throws: EventRecorderTimeout(
                eventType: String(reflecting: Reading.self), expected: 1, received: 0, timeout: .milliseconds(10))
        ) {
            try await readings.next(timeout: .milliseconds(10))
        }
        Reading(celsius: 1).queue(on: bus)
        #expect(try await readings.next() == Reading(celsius: 1))
        await bus.shutdown()
    }

    @Test("two next() calls that both time out leave the first event, then the second, to the next calls")
    func concurrentFailedNextsKeepTheirPlaces() async throws {
        // Which of the two calls takes the first position, and which times out first, is up to
        // the scheduler: 20 rounds meet both orders (each about half the time).
        for round in 0..<20 {
            let bus = EventBus(label: "recorder.retry.\(round)")
            let readings = bus.record(Reading.self)
            let first = Task { try await readings.next(timeout: .milliseconds(5)) }
            let second = Task { try await readings.next(timeout: .milliseconds(5)) }
            await #expect(throws: EventRecorderTimeout.self) { try await first.value }
            await #expect(throws: EventRecorderTimeout.self) { try await second.value }
            Reading(celsius: 1).queue(on: bus)
            Reading(celsius: 2).queue(on: bus)
            #expect(try await readings.next() == Reading(celsius: 1), "round \(round)")
            #expect(try await readings.next() == Reading(celsius: 2), "round \(round)")
            await bus.shutdown()
        }
    }

    @Test("waitFor(count:) with a negative count throws EventRecorderMisuse instead of trapping")
    func negativeCountIsAnError() async throws {
        let bus = EventBus(label: "recorder.negative")
        let readings = bus.record(Reading.self)
        Reading(celsius: 1).queue(on: bus)
        await #expect(throws: EventRecorderMisuse.negativeCount(-1)) {
            try await readings.waitFor(count: -1)
        }
        #expect(try await readings.waitFor(count: 0).isEmpty)
        await bus.shutdown()
    }

    @Test("a wait ends with CancellationError when its task is cancelled")
    func cancelledWait() async {
        let bus = EventBus(label: "recorder.cancel")
        let readings = bus.record(Reading.self)
        let waiting = Task { try await readings.waitFor(count: 1, timeout: .seconds(3_600)) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        await bus.shutdown()
    }

    @Test("helpers for #expect: received(where:), count(where:), received(_:), receivedNone(where:)")
    func expectationHelpers() async {
        let bus = EventBus(label: "recorder.helpers")
        let readings = bus.record(Reading.self)
        for celsius: Float in [18, 25, 31, 35] { Reading(celsius: celsius).queue(on: bus) }
        #expect(readings.received { $0.celsius > 30 })
        #expect(readings.count { $0.celsius > 30 } == 2)
        #expect(readings.received(Reading(celsius: 25)))
        #expect(!readings.received(Reading(celsius: 26)))
        #expect(readings.receivedNone { $0.celsius < 0 })
        #expect(readings.events { $0.celsius < 20 } == [Reading(celsius: 18)])
        #expect(readings.records { $0.metadata.priority == .normal }.count == 4)
        readings.removeAll()
        #expect(readings.isEmpty)
        await bus.shutdown()
    }

    @Test("a recorder is a subscriber: counted as delivered, and its events are never undelivered")
    func recorderIsASubscriber() async {
        let bus = EventBus(label: "recorder.subscriber")
        let readings = bus.record(Reading.self)
        #expect(bus.subscriberCount(for: Reading.self) == 1)
        Reading(celsius: 1).queue(on: bus)
        #expect(bus.statistics.delivered == 1)
        #expect(bus.statistics.undelivered == 0)
        #expect(readings.bus === bus)
        await bus.shutdown()
        #expect(!readings.isRecording)
    }
}
