// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization
import Testing

// SwiftEventBus's README example app, written in our API.

private enum Destination: Sendable { case screenOne, screenTwo, screenThree }
private struct NavigationEvent: Eventable { let destination: Destination }
private struct PageViewEvent: Eventable { let name: String }
private struct UserRewardPageViewEvent: Eventable {}
private struct UserQualifiedForRewardEvent: Eventable {}
private struct UserClaimRewardEvent: Eventable {}
private struct RewardClaimedStateEvent: Eventable {}
private class BaseEvent: Eventable, @unchecked Sendable {}  // no stored properties
private final class DerivedEvent: BaseEvent, @unchecked Sendable {}  // no stored properties

/// Routes navigation and shows or hides the prize, as in the README's `FlowController`.
private final class FlowController: EventConsumer, @unchecked Sendable {  // `journal` is a lock-guarded log
    let journal = CoreRecorder<String>()

    var willConsume: [any Eventable.Type] {
        [NavigationEvent.self, UserQualifiedForRewardEvent.self, RewardClaimedStateEvent.self]
    }

    func consume(_ event: any Eventable) {
        switch event {
        case let navigationEvent as NavigationEvent: journal.append("navigate \(navigationEvent.destination)")
        case is UserQualifiedForRewardEvent: journal.append("show prize")
        case is RewardClaimedStateEvent: journal.append("hide prize")
        default: break
        }
    }
}

/// Holds the reward state, as in the README's `Model`.
private final class Model: EventConsumer, Sendable {
    let eventBus: EventBus
    private let userHasClaimedPrize = LockedValue(false)

    init(eventBus: EventBus) { self.eventBus = eventBus }

    var willConsume: [any Eventable.Type] { [UserRewardPageViewEvent.self, UserClaimRewardEvent.self] }

    func consume(_ event: any Eventable) {
        switch event {
        case is UserRewardPageViewEvent:
            if userHasClaimedPrize.withLock({ $0 }) == false {
                eventBus.dispatchNow(UserQualifiedForRewardEvent())
            }
        case is UserClaimRewardEvent:
            userHasClaimedPrize.withLock { $0 = true }
            eventBus.dispatchNow(RewardClaimedStateEvent())
        default: break
        }
    }
}

/// Logs every consumption, as in the README's `Logger`.
private final class ConsumptionLogger: EventConsumer, Sendable {
    let lines = CoreRecorder<String>()
    var willConsume: [any Eventable.Type] { [DidConsumeEvent.self] }

    func consume(_ event: any Eventable) {
        guard let notice = event as? DidConsumeEvent else { return }
        lines.append("\(type(of: notice.consumer)) consumed \(type(of: notice.event))")
    }
}

/// Counts page views, as in the README's `AnalyticsMediator`.
private final class AnalyticsMediator: EventConsumer, Sendable {
    let pageViews = CoreRecorder<String>()
    var willConsume: [any Eventable.Type] { [PageViewEvent.self] }

    func consume(_ event: any Eventable) {
        if let pageView = event as? PageViewEvent { pageViews.append(pageView.name) }
    }
}

/// A consumer configured by its initializer, recording what it consumed.
private final class RecordingConsumer: EventConsumer, Sendable {
    let name: String
    let willConsume: [any Eventable.Type]
    let excludeList: [any Eventable.Type]
    let log: CoreRecorder<String>

    init(
        _ name: String, _ willConsume: [any Eventable.Type], excluding excludeList: [any Eventable.Type] = [],
        log: CoreRecorder<String>
    ) {
        self.name = name
        self.willConsume = willConsume
        self.excludeList = excludeList
        self.log = log
    }

    func consume(_ event: any Eventable) {
        log.append("\(name):\(type(of: event))")
    }
}

/// A consumer that keeps its bus alive, to show that the bus does not keep it alive in turn.
private final class BusHoldingConsumer: EventConsumer, Sendable {
    let bus: EventBus
    init(bus: EventBus) { self.bus = bus }
    var willConsume: [any Eventable.Type] { [AllEvents.self] }
    func consume(_ event: any Eventable) {}
}

@Suite("Consumers")
struct ConsumerTests {
    @Test("W1 W2 W3: README example app: navigation, circular reward flow, logging and analytics")
    func readmeApp() {
        let eventBus = EventBus(label: "W-readme")
        let model = Model(eventBus: eventBus)
        let flowController = FlowController()
        let logger = ConsumptionLogger()
        let analytics = AnalyticsMediator()
        let eventConsumers: [any EventConsumer] = [model, flowController, logger, analytics]
        for consumer in eventConsumers { eventBus.register(consumer) }

        eventBus.dispatchNow(NavigationEvent(destination: .screenTwo))
        eventBus.dispatchNow(PageViewEvent(name: "ScreenThree"))
        eventBus.dispatchNow(UserRewardPageViewEvent())
        eventBus.dispatchNow(UserClaimRewardEvent())
        eventBus.dispatchNow(UserRewardPageViewEvent())

        #expect(flowController.journal.values == ["navigate screenTwo", "show prize", "hide prize"])
        #expect(analytics.pageViews.values == ["ScreenThree"])
        #expect(
            logger.lines.values == [
                "FlowController consumed NavigationEvent",
                "AnalyticsMediator consumed PageViewEvent",
                "FlowController consumed UserQualifiedForRewardEvent",
                "Model consumed UserRewardPageViewEvent",
                "FlowController consumed RewardClaimedStateEvent",
                "Model consumed UserClaimRewardEvent",
                "Model consumed UserRewardPageViewEvent",
            ])
    }

    @Test("W1: a consumer gets only the types it lists")
    func listedTypes() {
        let bus = EventBus(label: "W1-listed")
        let log = CoreRecorder<String>()
        let consumer = RecordingConsumer("r", [NavigationEvent.self], log: log)
        bus.register(consumer)
        bus.dispatchNow(NavigationEvent(destination: .screenOne))
        bus.dispatchNow(PageViewEvent(name: "x"))
        #expect(log.values == ["r:NavigationEvent"])
    }

    @Test("W1: the catch-all takes every type but the excluded ones and the notices")
    func catchAll() {
        let bus = EventBus(label: "W1-all")
        let log = CoreRecorder<String>()
        let everything = RecordingConsumer("all", [AllEvents.self], excluding: [PageViewEvent.self], log: log)
        let notices = RecordingConsumer("notices", [AllEvents.self, DidConsumeEvent.self], log: log)
        let nothing = RecordingConsumer("none", [AllEvents.self], excluding: [AllEvents.self], log: log)
        bus.register(everything)
        bus.register(notices)
        bus.register(nothing)
        bus.dispatchNow(NavigationEvent(destination: .screenOne))
        bus.dispatchNow(PageViewEvent(name: "x"))
        #expect(
            log.values == [
                "all:NavigationEvent",
                "notices:DidConsumeEvent",
                "notices:NavigationEvent",
                "notices:DidConsumeEvent",
                "notices:PageViewEvent",
                "notices:DidConsumeEvent",
            ])
    }

    @Test("W1: both lists match exact types: a subclass is neither consumed nor excluded through its superclass")
    func listsMatchExactTypes() {
        let bus = EventBus(label: "W1-exact")
        let log = CoreRecorder<String>()
        let bases = RecordingConsumer("bases", [BaseEvent.self], log: log)
        let allButBases = RecordingConsumer("allButBases", [AllEvents.self], excluding: [BaseEvent.self], log: log)
        bus.register(bases)
        bus.register(allButBases)
        bus.dispatchNow(BaseEvent())
        bus.dispatchNow(DerivedEvent())
        #expect(log.values == ["bases:BaseEvent", "allButBases:DerivedEvent"])
    }

    @Test("W2: consumers run on the dispatching thread, in registration order, before dispatchNow returns")
    func registrationOrder() async {
        let bus = EventBus(label: "W2-order")
        let log = CoreRecorder<String>()
        let threads = CoreRecorder<UInt>()
        let consumers = (0..<5).map { RecordingConsumer("c\($0)", [NavigationEvent.self], log: log) }
        for consumer in consumers { bus.register(consumer) }
        bus.listen(NavigationEvent.self, executeOn: .synchronous) { _, _ in threads.append(coreThreadID()) }
        let dispatcher = await withCheckedContinuation { (continuation: CheckedContinuation<UInt, Never>) in
            Thread {
                bus.dispatchNow(NavigationEvent(destination: .screenOne))
                #expect(log.count == 5)
                continuation.resume(returning: coreThreadID())
            }.start()
        }
        #expect(log.values == (0..<5).map { "c\($0):NavigationEvent" })
        #expect(threads.values == [dispatcher])
    }

    @Test("W2: registering the same consumer twice delivers once")
    func registerTwice() {
        let bus = EventBus(label: "W2-twice")
        let log = CoreRecorder<String>()
        let consumer = RecordingConsumer("r", [NavigationEvent.self], log: log)
        #expect(bus.register(consumer))
        #expect(!bus.register(consumer))
        bus.dispatchNow(NavigationEvent(destination: .screenOne))
        #expect(log.count == 1)
        #expect(bus.consumerCount == 1)
        #expect(bus.unregister(consumer))
        bus.dispatchNow(NavigationEvent(destination: .screenOne))
        #expect(log.count == 1)
    }

    @Test("W2: consumers also take queued and stacked events, on the dispatching thread")
    func queuedEvents() {
        let bus = EventBus(label: "W2-queued")
        let log = CoreRecorder<String>()
        let consumer = RecordingConsumer("r", [NavigationEvent.self], log: log)
        bus.register(consumer)
        NavigationEvent(destination: .screenOne).queue(on: bus)
        NavigationEvent(destination: .screenTwo).stack(on: bus)
        withExtendedLifetime(consumer) {}
        #expect(log.count == 2)
        #expect(bus.statistics.undelivered == 0)
    }

    @Test("W3: each notice follows its consume, carries consumer and event, and triggers no further notice")
    func noticeOrder() {
        let bus = EventBus(label: "W3-order")
        let log = CoreRecorder<String>()
        let first = RecordingConsumer("first", [NavigationEvent.self], log: log)
        let second = RecordingConsumer("second", [NavigationEvent.self], log: log)
        let noticeConsumer = RecordingConsumer("noticeConsumer", [DidConsumeEvent.self], log: log)
        bus.register(first)
        bus.register(second)
        bus.register(noticeConsumer)
        bus.listen(DidConsumeEvent.self, executeOn: .synchronous) { notice, _ in
            let consumer = (notice.consumer as? RecordingConsumer)?.name ?? "?"
            let destination = (notice.event as? NavigationEvent)?.destination
            log.append("notice:\(consumer):\(destination.map { "\($0)" } ?? "?")")
        }
        bus.dispatchNow(NavigationEvent(destination: .screenThree))
        #expect(
            log.values == [
                "first:NavigationEvent",
                "noticeConsumer:DidConsumeEvent",
                "notice:first:screenThree",
                "second:NavigationEvent",
                "noticeConsumer:DidConsumeEvent",
                "notice:second:screenThree",
            ])
    }

    @Test("W3: notices reach an asynchronous listener with no main run loop, even if the bus is released")
    func noticeSurvivesReleasedBus() async {
        let received = DispatchSemaphore(value: 0)
        let notices = CoreRecorder<String>()
        let consumer = RecordingConsumer("r", [NavigationEvent.self], log: CoreRecorder<String>())
        weak var weakBus: EventBus?
        do {
            let bus = EventBus(label: "W3-released")
            weakBus = bus
            bus.register(consumer)
            bus.listen(DidConsumeEvent.self) { notice, _ in
                notices.append("\(type(of: notice.event))")
                received.signal()
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread {
                    bus.dispatchNow(NavigationEvent(destination: .screenOne))
                    continuation.resume()
                }.start()
            }
        }
        #expect(weakBus == nil)
        #expect(await channelWait(received))
        #expect(notices.values == ["NavigationEvent"])
    }

    @Test("W3: without anyone subscribed to notices none is dispatched or counted")
    func noNoticeWithoutSubscribers() {
        let bus = EventBus(label: "W3-none")
        let consumer = RecordingConsumer("r", [NavigationEvent.self], log: CoreRecorder<String>())
        bus.register(consumer)
        bus.dispatchNow(NavigationEvent(destination: .screenOne))
        withExtendedLifetime(consumer) {}
        #expect(bus.statistics.undelivered == 0)
        #expect(bus.statistics.delivered == 1)
    }

    @Test("W4: consumers are held weakly, even when they hold the bus")
    func weakConsumers() {
        let bus = EventBus(label: "W4-weak")
        let log = CoreRecorder<String>()
        var consumer: RecordingConsumer? = RecordingConsumer("r", [NavigationEvent.self], log: log)
        weak let weakConsumer = consumer
        bus.register(consumer!)
        consumer = nil
        #expect(weakConsumer == nil)
        bus.dispatchNow(NavigationEvent(destination: .screenOne))
        #expect(log.values.isEmpty)
        #expect(bus.consumerCount == 0)

        var holder: BusHoldingConsumer? = BusHoldingConsumer(bus: bus)
        weak let weakHolder = holder
        bus.register(holder!)
        holder = nil
        #expect(weakHolder == nil)
    }

    @Test("W2: registering, unregistering and dispatching from many threads at once is safe")
    func concurrentConsumers() async {
        let bus = EventBus(label: "W2-concurrent")
        let log = CoreRecorder<String>()
        let steady = RecordingConsumer("steady", [NavigationEvent.self], log: log)
        bus.register(steady)
        await coreOnThreads(8) { index in
            let transient = RecordingConsumer("t\(index)", [PageViewEvent.self], log: CoreRecorder<String>())
            for _ in 0..<200 {
                bus.register(transient)
                bus.dispatchNow(NavigationEvent(destination: .screenOne))
                bus.unregister(transient)
            }
        }
        #expect(log.count == 8 * 200)
        #expect(bus.consumerCount == 1)
    }
}
