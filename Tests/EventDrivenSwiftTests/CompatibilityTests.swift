// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// The seeds' spellings that their READMEs never showed or our tables missed (issue 17).
@Suite("W1/T1: the seeds' remaining spellings")
struct CompatibilityTests {
    struct Reading: Eventable { let value: Int }
    struct Other: Eventable {}

    final class Recorder: EventConsumer, Sendable {
        let consumed = CoreRecorder<String>()
        let willConsume: [any Eventable.Type]
        let excludeList: [any Eventable.Type]
        init(willConsume: [any Eventable.Type], excludeList: [any Eventable.Type] = []) {
            self.willConsume = willConsume
            self.excludeList = excludeList
        }
        func consume(_ event: any Eventable) { consumed.append(String(describing: type(of: event))) }
    }

    final class Processor: EventThread, @unchecked Sendable {  // no state of its own
        let seen = CoreRecorder<Int>()
        override func registerEventListeners() {
            addEventCallback(onReading, forEventType: Reading.self)
        }
        func onReading(_ event: Reading, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            seen.append(event.value)
        }
    }

    @Test("W1: NoEvent in willConsume consumes nothing, in excludeList everything; deregister(_:) is unregister(_:)")
    func noEventAndDeregister() {
        let bus = EventBus(label: "compat-consumers")
        let nothing = Recorder(willConsume: [NoEvent.self])
        let allButReading = Recorder(willConsume: [AllEvents.self], excludeList: [Reading.self])
        bus.register(nothing)
        bus.register(allButReading)
        bus.dispatchNow(Reading(value: 1))
        bus.dispatchNow(Other())
        #expect(nothing.consumed.values.isEmpty)
        #expect(allButReading.consumed.values == ["Other"])
        #expect(bus.deregister(allButReading))
        #expect(!bus.deregister(allButReading))
        bus.dispatchNow(Other())
        #expect(allButReading.consumed.values == ["Other"])
    }

    /// SwiftEventBus's own tests of `NoEvent` (its `EventConsumerTests`), in our API.
    @Test(
        "W1: NoEvent as SwiftEventBus's tests define it: it wins over AllEvent in willConsume, and in excludeList makes every event consumed"
    )
    func noEventAsSwiftEventBusTestsDefineIt() {
        struct Third: Eventable {}
        let bus = EventBus(label: "compat-noevent")
        let noneAmongOthers = Recorder(willConsume: [Reading.self, Other.self, NoEvent.self])
        let noneAndAll = Recorder(willConsume: [AllEvent.self, NoEvent.self])
        let excludingNone = Recorder(willConsume: [Other.self], excludeList: [NoEvent.self, Reading.self])
        let noneBothWays = Recorder(willConsume: [NoEvent.self], excludeList: [NoEvent.self])
        for consumer in [noneAmongOthers, noneAndAll, excludingNone, noneBothWays] { bus.register(consumer) }
        bus.dispatch(Reading(value: 1))
        bus.dispatch(Other())
        bus.dispatch(Third())
        #expect(noneAmongOthers.consumed.values.isEmpty)
        #expect(noneAndAll.consumed.values.isEmpty)
        #expect(excludingNone.consumed.values == ["Reading", "Other", "Third"])
        #expect(noneBothWays.consumed.values.isEmpty, "NoEvent in willConsume is looked at first")
    }

    @Test("W2: SwiftEventBus's eventBus.dispatch(event) is dispatchNow: consumers have run when it returns")
    func swiftEventBusDispatch() {
        let bus = EventBus(label: "compat-dispatch")
        let consumer = Recorder(willConsume: [Reading.self])
        let synchronous = CoreRecorder<Int>()
        bus.register(consumer)
        bus.listen(Reading.self, executeOn: .synchronous) { reading, _ in synchronous.append(reading.value) }
        bus.dispatch(Reading(value: 4))
        #expect(consumer.consumed.values == ["Reading"])
        #expect(synchronous.values == [4])
    }

    @Test("W3: DidConsumeEvent can be made in a user's own test of a logging consumer")
    func didConsumeEventInitializer() {
        let consumer = Recorder(willConsume: [Reading.self])
        let notice = DidConsumeEvent(consumer: consumer, event: Reading(value: 7))
        #expect(notice.consumer === consumer)
        #expect((notice.event as? Reading)?.value == 7)
    }

    @Test("T1: EventThread.queueEvent and stackEvent dispatch on the thread's bus, as in 5.2")
    func queueEventAndStackEvent() async {
        let bus = EventBus(label: "compat-thread")
        let processor = Processor(bus: bus)
        processor.queueEvent(Reading(value: 1))
        processor.stackEvent(Reading(value: 2), priority: .high)
        await bus.drain()
        #expect(processor.seen.values.sorted() == [1, 2])
        #expect(bus.statistics.delivered == 2)
        processor.cancel()
    }
}
