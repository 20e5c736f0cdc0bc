// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import EventDrivenSwiftTesting
import ServiceContextModule
import Testing

/// A request id carried in a `ServiceContext`.
private enum RequestID: ServiceContextKey {
    typealias Value = String
}

@Suite("K1: ManualClock")
struct ManualClockTests {
    @Test("scheduled events fire only inside advance, in due order, ties in scheduling order")
    func firesInDueOrder() async {
        let bus = EventBus.deterministic()
        let readings = bus.record(Reading.self)
        let clock = ManualClock()
        clock.schedule(Reading(celsius: 3), on: bus, after: .seconds(3))
        clock.schedule(Reading(celsius: 1), on: bus, after: .seconds(1))
        clock.schedule(Reading(celsius: 2), on: bus, after: .seconds(1))
        #expect(clock.pendingCount == 3)
        #expect(clock.advance(by: .milliseconds(999)) == 0)
        #expect(readings.isEmpty)
        #expect(clock.advance(by: .milliseconds(1)) == 2)
        #expect(readings.events == [Reading(celsius: 1), Reading(celsius: 2)])
        #expect(clock.advance(by: .seconds(10)) == 1)
        #expect(readings.events.map(\.celsius) == [1, 2, 3])
        #expect(clock.pendingCount == 0)
        await bus.shutdown()
    }

    @Test("an event fired by advance carries the ServiceContext current where it was scheduled")
    func carriesTheSchedulersContext() async {
        let bus = EventBus.deterministic()
        bus.propagatesServiceContext = true
        let seen = Collected<String?>()
        bus.listen(Reading.self, executeOn: .synchronous) { _, _ in seen.append(ServiceContext.current?[RequestID.self])
        }
        let clock = ManualClock()
        var context = ServiceContext.topLevel
        context[RequestID.self] = "request-3"
        ServiceContext.withValue(context) { _ = clock.schedule(Reading(celsius: 1), on: bus, after: .seconds(1)) }
        clock.advance(by: .seconds(1))
        #expect(seen.values == ["request-3"])
        await bus.shutdown()
    }

    @Test("now moves by what advance says; advance(to:) never goes back")
    func timeMoves() {
        let start = DispatchTime(uptimeNanoseconds: 1_000_000_000)
        let clock = ManualClock(now: start)
        #expect(clock.now == start)
        clock.advance(by: .milliseconds(1_500))
        #expect(clock.now.uptimeNanoseconds == 2_500_000_000)
        clock.advance(to: start)
        #expect(clock.now.uptimeNanoseconds == 2_500_000_000)
    }

    @Test("a cancelled dispatch never fires; handles say what happened")
    func cancel() async {
        let bus = EventBus.deterministic()
        let readings = bus.record(Reading.self)
        let clock = ManualClock()
        let kept = clock.schedule(Reading(celsius: 1), on: bus, after: .seconds(1))
        let dropped = clock.schedule(Reading(celsius: 2), on: bus, after: .seconds(2))
        #expect(clock.nextDueTime == kept.dueTime)
        #expect(dropped.cancel())
        #expect(!dropped.cancel())
        #expect(clock.pendingCount == 1)
        clock.advance(by: .seconds(5))
        #expect(readings.events == [Reading(celsius: 1)])
        #expect(kept.hasFired && !kept.isCancelled)
        #expect(dropped.isCancelled && !dropped.hasFired)
        #expect(!kept.cancel())
        #expect(clock.nextDueTime == nil)
        await bus.shutdown()
    }

    @Test("a handler that schedules during advance gets its event in the same advance, if it falls due")
    func handlersScheduleFromTheDueTime() async {
        let bus = EventBus.deterministic()
        let clock = ManualClock()
        let ticks = bus.record(Reading.self)
        bus.listen(Reading.self) { event, _ in
            if event.celsius < 3 { clock.schedule(Reading(celsius: event.celsius + 1), on: bus, after: .seconds(1)) }
        }
        clock.schedule(Reading(celsius: 0), on: bus, after: .seconds(1))
        #expect(clock.advance(by: .milliseconds(2_500)) == 2)
        #expect(ticks.events.map(\.celsius) == [0, 1])
        #expect(clock.advance(by: .seconds(10)) == 2)
        #expect(ticks.events.map(\.celsius) == [0, 1, 2, 3])
        await bus.shutdown()
    }

    @Test("metadata: fired events are 0 old, and were scheduled as long before as they waited on the clock")
    func scheduledMetadata() async {
        let bus = EventBus.deterministic()
        let readings = bus.record(Reading.self)
        let clock = ManualClock()
        clock.advance(by: .seconds(1))
        clock.schedule(Reading(celsius: 1), on: bus, after: .seconds(4), method: .stack, priority: .high)
        clock.advance(by: .seconds(60))
        let metadata = readings.metadata[0]
        #expect(metadata.method == .stack)
        #expect(metadata.priority == .high)
        let scheduledTime = metadata.scheduledTime
        #expect(scheduledTime.map { metadata.dispatchTime.uptimeNanoseconds - $0.uptimeNanoseconds } == 4_000_000_000)
        #expect(metadata.age < 1_000_000_000)
        await bus.shutdown()
    }

    @Test("dispatch(_:on:age:) makes .youngerThan listeners skip events older than their maximum age")
    func ages() async {
        let bus = EventBus.deterministic()
        let clock = ManualClock()
        let fresh = Collected<Float>()
        bus.listen(Reading.self, interestedIn: .youngerThan(.seconds(1))) { event, _ in
            fresh.append(event.celsius)
        }
        clock.dispatch(Reading(celsius: 1), on: bus, age: .seconds(2))
        clock.dispatch(Reading(celsius: 2), on: bus, age: .milliseconds(100))
        #expect(fresh.values == [2])
        #expect(bus.statistics.expired == 1)
        await bus.shutdown()
    }

    @Test("a bus that has shut down gets nothing from the clock")
    func shutDownBus() async {
        let bus = EventBus.deterministic()
        let clock = ManualClock()
        clock.schedule(Reading(celsius: 1), on: bus, after: .seconds(1))
        await bus.shutdown()
        #expect(clock.advance(by: .seconds(2)) == 0)
        #expect(bus.statistics.rejected == 0)
    }
}
