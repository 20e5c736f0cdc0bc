// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// Ported from SwiftEventBus's EventBusTests, EventConsumerTests and EventTests, in our API:
/// payloads, the exclusion cases, and consumers that change the registrations while they run.
/// Subclasses are left to ConsumerTests, since our lists match exact types.
@Suite("Seed suite: SwiftEventBus consumers")
struct SeedSuiteSwiftEventBusTests {
    @Test("E1: a consumer gets the event's payload intact")
    func payloadIntact() async {
        let bus = EventBus(label: "seed-seb-payload")
        let consumer = SeedConsumer([SeedStubEvent.self, PayloadEvent.self])
        bus.register(consumer)
        let payload = PayloadEvent.Payload(item: true, list: ["one", "two"])
        bus.dispatchNow(PayloadEvent(payload: payload))
        #expect((consumer.last as? PayloadEvent)?.payload == payload)
        await bus.shutdown()
    }

    /// The seed's exclusion cases: what willConsume and excludeList together let through.
    @Test("W1: excludeList subtracts from willConsume, whichever list names the catch-all", arguments: [0, 1, 2, 3])
    func exclusions(row: Int) async {
        let (willConsume, excluding, consumed) = Self.exclusionTable[row]
        let bus = EventBus(label: "seed-seb-exclusion")
        let consumer = SeedConsumer(willConsume, excluding: excluding)
        bus.register(consumer)
        bus.dispatchNow(SeedStubEvent())
        bus.dispatchNow(SeedAnotherStubEvent())
        bus.dispatchNow(SeedAlternativeStubEvent())
        #expect(consumer.consumed.values.map { "\(type(of: $0))" } == consumed)
        await bus.shutdown()
    }

    @Test("W2: a consumer registered from inside consume takes the next event")
    func registerFromConsume() async {
        let bus = EventBus(label: "seed-seb-register-inside")
        let late = SeedConsumer([SeedStubEvent.self])
        let registrar = ActingConsumer([SeedAnotherStubEvent.self]) { _ = bus.register(late) }
        bus.register(registrar)
        bus.dispatchNow(SeedAnotherStubEvent())
        bus.dispatchNow(SeedStubEvent())
        #expect(late.consumed.count == 1)
        #expect(bus.consumerCount == 2)
        await bus.shutdown()
    }

    @Test("W2/D7: dispatchNow runs consumers first, then synchronous listeners in registration order")
    func consumersBeforeSynchronousListeners() async {
        let bus = EventBus(label: "seed-seb-d7")
        let order = CoreRecorder<String>()
        bus.listen(SeedStubEvent.self, executeOn: .synchronous) { _, _ in order.append("listener 1") }
        let consumer = SeedConsumer([SeedStubEvent.self], name: "consumer", order: order)
        bus.register(consumer)
        bus.listen(SeedStubEvent.self, executeOn: .synchronous) { _, _ in order.append("listener 2") }
        bus.dispatchNow(SeedStubEvent())
        #expect(order.values == ["consumer", "listener 1", "listener 2"])
        await bus.shutdown()
    }

    @Test("W2: a consumer that an earlier one unregisters during a dispatch still gets that event, and no later one")
    func unregisterDuringDispatch() async {
        let bus = EventBus(label: "seed-seb-unregister-inside")
        let later = SeedConsumer([SeedStubEvent.self])
        let remover = ActingConsumer([SeedStubEvent.self]) { _ = bus.unregister(later) }
        bus.register(remover)
        bus.register(later)
        bus.dispatchNow(SeedStubEvent())
        #expect(later.consumed.count == 1)
        bus.dispatchNow(SeedStubEvent())
        #expect(later.consumed.count == 1)
        await bus.shutdown()
    }

    @Test("W3: queued and stacked events that a consumer takes have their notices too")
    func noticesOfQueuedEvents() async {
        let bus = EventBus(label: "seed-seb-notice-queued")
        let consumer = SeedConsumer([SeedStubEvent.self])
        let notices = SeedConsumer([DidConsumeEvent.self])
        bus.register(consumer)
        bus.register(notices)
        SeedStubEvent().queue(on: bus)
        SeedStubEvent().stack(on: bus)
        #expect(notices.consumed.count == 2)
        #expect(notices.consumed.values.allSatisfy { ($0 as? DidConsumeEvent)?.consumer === consumer })
        await bus.shutdown()
    }

    /// SwiftEventBus's tests make a bus per test and never shut it down.
    @Test("W4: a bus never shut down and a consumer holding it are both freed")
    func busAndConsumerFreed() {
        weak var weakBus: EventBus?
        weak var weakConsumer: ActingConsumer?
        let consumed = CoreCounter()
        do {
            let bus = EventBus()
            // It holds its bus, as an app's consumer would; the bus holds it weakly.
            let consumer = ActingConsumer([SeedStubEvent.self]) {
                withExtendedLifetime(bus) { _ = consumed.increment() }
            }
            weakBus = bus
            weakConsumer = consumer
            bus.register(consumer)
            bus.dispatchNow(SeedStubEvent())
        }
        #expect(consumed.count == 1)
        #expect(weakConsumer == nil)
        #expect(weakBus == nil)
    }
}

extension SeedSuiteSwiftEventBusTests {
    struct PayloadEvent: Eventable {
        struct Payload: Equatable, Sendable {
            var item: Bool
            var list: [String]
        }
        let payload: Payload
    }

    /// willConsume, excludeList, and the types of stub, another and alternative consumed.
    static let exclusionTable: [([any Eventable.Type], [any Eventable.Type], [String])] = [
        ([SeedStubEvent.self], [SeedStubEvent.self], []),
        ([SeedAnotherStubEvent.self], [SeedStubEvent.self], ["SeedAnotherStubEvent"]),
        ([AllEvent.self], [SeedStubEvent.self], ["SeedAnotherStubEvent", "SeedAlternativeStubEvent"]),
        ([SeedStubEvent.self], [AllEvent.self], []),
    ]

    /// Runs `action` for each event it consumes; what `action` captures, it holds.
    final class ActingConsumer: EventConsumer, Sendable {
        let willConsume: [any Eventable.Type]
        let action: @Sendable () -> Void

        init(_ willConsume: [any Eventable.Type], action: @escaping @Sendable () -> Void) {
            self.willConsume = willConsume
            self.action = action
        }

        func consume(_ event: any Eventable) { action() }
    }
}
