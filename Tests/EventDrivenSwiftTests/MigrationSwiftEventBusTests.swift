// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// The rows of the table in "Migrating from SwiftEventBus": each test is named after its row and
/// checks what the row says we do.
///
/// `.serialized`: one of them registers a consumer on ``EventCentral/shared``.
@Suite("Migrating from SwiftEventBus", .serialized)
struct MigrationSwiftEventBusTests {
    @Test("self.eventBus = EventBus() makes a bus of its own; EventCentral.shared is one too")
    func eventBusInit() {
        let eventBus = EventBus()
        let other = EventBus()
        let consumer = Recorder([NavigationEvent.self])
        eventBus.register(consumer)
        eventBus.dispatchNow(NavigationEvent(destination: 1))
        other.dispatchNow(NavigationEvent(destination: 2))
        #expect(consumer.log.values == ["NavigationEvent 1"], "each EventBus() is a bus of its own")

        let shared = Recorder([NavigationEvent.self])
        EventCentral.shared.register(shared)
        EventCentral.shared.dispatchNow(NavigationEvent(destination: 3))
        EventCentral.shared.unregister(shared)
        #expect(shared.log.values == ["NavigationEvent 3"])
        #expect(consumer.log.values == ["NavigationEvent 1"])
    }

    @Test("protocol EventConsumer: AnyObject, Sendable — any class, no NSObject, shareable across threads")
    func eventConsumerProtocol() async {
        let consumer = Recorder([NavigationEvent.self])
        let erased: any EventConsumer = consumer
        // Both compile only because of the protocol's refinements.
        let object: AnyObject = erased
        let sendable: any Sendable = erased
        #expect(ObjectIdentifier(object) == ObjectIdentifier(consumer))
        #expect(sendable is Recorder)
        let bus = EventBus(label: "swifteventbus-protocol")
        bus.register(consumer)
        await coreOnThreads(4) { index in bus.dispatchNow(NavigationEvent(destination: index)) }
        #expect(consumer.log.values.sorted() == (0..<4).map { "NavigationEvent \($0)" })
    }

    @Test("willConsume, excludeList and consume(_:) are the consumer's requirements; excludeList defaults to []")
    func consumerRequirements() {
        let bus = EventBus(label: "swifteventbus-requirements")
        let excluding = Recorder([NavigationEvent.self, PageViewEvent.self], excluding: [PageViewEvent.self])
        let minimal = MinimalConsumer()
        bus.register(excluding)
        bus.register(minimal)
        bus.dispatchNow(NavigationEvent(destination: 1))
        bus.dispatchNow(PageViewEvent())
        bus.dispatchNow(RewardEvent())
        #expect(excluding.log.values == ["NavigationEvent 1"], "excludeList subtracts from willConsume")
        #expect(minimal.excludeList.isEmpty)
        #expect(minimal.log.values == ["NavigationEvent 1", "PageViewEvent"])
    }

    @Test("AllEvent is AllEvents: every event type, less the excluded ones")
    func allEvents() {
        let bus = EventBus(label: "swifteventbus-all")
        let everything = Recorder([AllEvent.self])
        let allButPageViews = Recorder([AllEvents.self], excluding: [PageViewEvent.self])
        bus.register(everything)
        bus.register(allButPageViews)
        bus.dispatchNow(NavigationEvent(destination: 1))
        bus.dispatchNow(PageViewEvent())
        bus.dispatchNow(RewardEvent())
        #expect(everything.log.values == ["NavigationEvent 1", "PageViewEvent", "RewardEvent"])
        #expect(allButPageViews.log.values == ["NavigationEvent 1", "RewardEvent"])
    }

    @Test("NoEvent is NoEvent: in willConsume nothing (an empty list natively), in excludeList everything")
    func noEvent() {
        let bus = EventBus(label: "swifteventbus-none")
        let nothing = Recorder([NoEvent.self])
        let nothingAtAll = Recorder([AllEvent.self, NoEvent.self])
        let empty = Recorder([])
        let excludingNone = Recorder([NavigationEvent.self], excluding: [NoEvent.self, PageViewEvent.self])
        bus.register(nothing)
        bus.register(nothingAtAll)
        bus.register(empty)
        bus.register(excludingNone)
        bus.dispatchNow(NavigationEvent(destination: 1))
        bus.dispatchNow(PageViewEvent())
        bus.dispatchNow(RewardEvent())
        #expect(nothing.log.values.isEmpty)
        #expect(nothingAtAll.log.values.isEmpty)
        #expect(empty.log.values.isEmpty)
        #expect(excludingNone.log.values == ["NavigationEvent 1", "PageViewEvent", "RewardEvent"])
    }

    @Test("eventBus.deregister(consumer) is eventBus.unregister(consumer)")
    func deregister() {
        let bus = EventBus(label: "swifteventbus-deregister")
        let viaUnregister = Recorder([NavigationEvent.self])
        let viaDeregister = Recorder([NavigationEvent.self])
        bus.register(viaUnregister)
        bus.register(viaDeregister)
        bus.dispatchNow(NavigationEvent(destination: 1))
        #expect(bus.unregister(viaUnregister))
        #expect(bus.deregister(viaDeregister))
        #expect(!bus.deregister(viaDeregister) && !bus.unregister(viaUnregister), "each was registered once")
        bus.dispatchNow(NavigationEvent(destination: 2))
        #expect(viaUnregister.log.values == ["NavigationEvent 1"])
        #expect(viaDeregister.log.values == ["NavigationEvent 1"])
        #expect(bus.consumerCount == 0)
    }

    @Test("for consumer in eventConsumers { eventBus.register(consumer) } registers each, run in that order")
    func registerEach() {
        let eventBus = EventBus(label: "swifteventbus-register")
        let journal = CoreRecorder<String>()
        let eventConsumers: [any EventConsumer] = (0..<4).map { Named("consumer \($0)", journal: journal) }
        for consumer in eventConsumers { eventBus.register(consumer) }
        #expect(eventBus.consumerCount == 4)
        eventBus.dispatchNow(NavigationEvent(destination: 1))
        #expect(journal.values == (0..<4).map { "consumer \($0)" })
    }

    @Test("eventBus.dispatch(event) forwards to eventBus.dispatchNow(event): consumed on this thread before it returns")
    func dispatchNow() {
        let eventBus = EventBus(label: "swifteventbus-dispatch")
        let threads = CoreRecorder<UInt>()
        let consumer = Recorder([NavigationEvent.self], threads: threads)
        eventBus.register(consumer)
        eventBus.dispatchNow(NavigationEvent(destination: 2))
        #expect(consumer.log.values == ["NavigationEvent 2"], "consumed before dispatchNow returned")
        eventBus.dispatch(NavigationEvent(destination: 3))
        #expect(consumer.log.values == ["NavigationEvent 2", "NavigationEvent 3"], "consumed before dispatch returned")
        #expect(threads.values == [coreThreadID(), coreThreadID()])
    }

    @Test("DidConsumeEvent follows each consume on the same thread; DidConsumeEvent(consumer:event:) makes one")
    func didConsumeEvent() {
        let bus = EventBus(label: "swifteventbus-notice")
        let journal = CoreRecorder<String>()
        let threads = CoreRecorder<UInt>()
        let first = Named("first", journal: journal, threads: threads)
        let second = Named("second", journal: journal, threads: threads)
        let logger = NoticeLogger(journal: journal, threads: threads)
        bus.register(first)
        bus.register(second)
        bus.register(logger)
        bus.dispatchNow(NavigationEvent(destination: 1))
        #expect(
            journal.values == [
                "first", "notice: Named consumed NavigationEvent", "second", "notice: Named consumed NavigationEvent",
            ])
        #expect(Set(threads.values) == [coreThreadID()])

        let notice = DidConsumeEvent(consumer: first, event: PageViewEvent())
        logger.consume(notice)
        #expect(journal.values.last == "notice: Named consumed PageViewEvent")
        #expect(notice.consumer === first)
    }
}

extension MigrationSwiftEventBusTests {
    struct NavigationEvent: Eventable { let destination: Int }
    struct PageViewEvent: Eventable {}
    struct RewardEvent: Eventable {}

    /// Logs what it consumes, and on which thread.
    final class Recorder: EventConsumer, Sendable {
        let log = CoreRecorder<String>()
        let threads: CoreRecorder<UInt>
        let willConsume: [any Eventable.Type]
        let excludeList: [any Eventable.Type]

        init(
            _ willConsume: [any Eventable.Type], excluding excludeList: [any Eventable.Type] = [],
            threads: CoreRecorder<UInt> = CoreRecorder()
        ) {
            self.willConsume = willConsume
            self.excludeList = excludeList
            self.threads = threads
        }

        func consume(_ event: any Eventable) {
            threads.append(coreThreadID())
            if let navigation = event as? NavigationEvent {
                log.append("NavigationEvent \(navigation.destination)")
            } else {
                log.append("\(type(of: event))")
            }
        }
    }

    /// States only what SwiftEventBus required without a default: `willConsume` and `consume`.
    final class MinimalConsumer: EventConsumer, Sendable {
        let log = CoreRecorder<String>()
        var willConsume: [any Eventable.Type] { [NavigationEvent.self, PageViewEvent.self] }
        func consume(_ event: any Eventable) {
            log.append(event is NavigationEvent ? "NavigationEvent 1" : "\(type(of: event))")
        }
    }

    /// Writes its name in a journal shared with other consumers.
    final class Named: EventConsumer, Sendable {
        let name: String
        let journal: CoreRecorder<String>
        let threads: CoreRecorder<UInt>
        var willConsume: [any Eventable.Type] { [NavigationEvent.self] }

        init(_ name: String, journal: CoreRecorder<String>, threads: CoreRecorder<UInt> = CoreRecorder()) {
            self.name = name
            self.journal = journal
            self.threads = threads
        }

        func consume(_ event: any Eventable) {
            threads.append(coreThreadID())
            journal.append(name)
        }
    }

    /// SwiftEventBus's `Logger`: consumes the did-consume notices.
    final class NoticeLogger: EventConsumer, Sendable {
        let journal: CoreRecorder<String>
        let threads: CoreRecorder<UInt>
        var willConsume: [any Eventable.Type] { [DidConsumeEvent.self] }

        init(journal: CoreRecorder<String>, threads: CoreRecorder<UInt>) {
            self.journal = journal
            self.threads = threads
        }

        func consume(_ event: any Eventable) {
            guard let notice = event as? DidConsumeEvent else { return }
            threads.append(coreThreadID())
            journal.append("notice: \(type(of: notice.consumer)) consumed \(type(of: notice.event))")
        }
    }
}
