// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// A channel's or a state's subscription handle kept by the object its handler captures: once
/// the subscription has ended, the handle must not keep the handler, and so the object, alive.
@Suite("L2: subscription handles kept by what their handlers capture")
struct SubscriptionHandleLifetimeTests {
    private static let readings = EventChannel<Int>(label: "handle-lifetime")
    private static let level = EventState<Int>(label: "handle-lifetime")

    /// Keeps its own subscriptions; its handlers capture it strongly.
    private final class Model: Sendable {
        let handles = LockedValue<[ChannelSubscription]>([])
        let seen = CoreCounter()
    }

    enum Ending: String, CaseIterable, Sendable {
        case cancel, shutdown
    }

    @Test("an ended subscription frees the handler's owner, which kept the handle", arguments: Ending.allCases)
    func endedSubscriptionFreesItsOwner(ending: Ending) async {
        let bus = EventBus(label: "handle-lifetime-\(ending.rawValue)")
        weak var weakModel: Model?
        do {
            let model = Model()
            weakModel = model
            let channel = bus.subscribe(Self.readings, on: .synchronous) { _ in model.seen.increment() }
            let state = bus.subscribe(Self.level, on: .synchronous) { _ in model.seen.increment() }
            model.handles.withLock { $0 = [channel, state] }
            bus.publish(Self.readings, 1)
            bus.set(Self.level, to: 1)
            #expect(model.seen.count == 2)
            switch ending {
            case .cancel:
                for handle in model.handles.withLock({ $0 }) { handle.cancel() }
            case .shutdown:
                await bus.shutdown()
            }
            #expect(model.handles.withLock { $0.allSatisfy { !$0.isActive } })
        }
        await bus.drain()
        #expect(weakModel == nil, "the handles kept the handlers, the handlers the model")
        await bus.shutdown()
    }

    @Test("a bus freed without a shutdown lets go of its channel and state subscriptions' handles and handlers")
    func freedBusEndsItsSubscriptions() {
        weak var weakBus: EventBus?
        weak var weakModel: Model?
        let handles: [ChannelSubscription]
        do {
            let bus = EventBus(label: "handle-lifetime-freed")
            weakBus = bus
            let model = Model()
            weakModel = model
            handles = [
                bus.subscribe(Self.readings, on: .synchronous) { _ in model.seen.increment() },
                bus.subscribe(Self.level, on: .synchronous) { _ in model.seen.increment() },
            ]
            bus.publish(Self.readings, 1)
            bus.set(Self.level, to: 1)
            #expect(model.seen.count == 2)
        }
        #expect(weakBus == nil, "nothing else holds the bus")
        #expect(weakModel == nil, "the subscriptions outlived their bus, and kept the handlers")
        #expect(handles.allSatisfy { !$0.isActive })
    }

    @Test("handles of one subscription are equal, of two are not, also once they have ended")
    func handleIdentity() async {
        let bus = EventBus(label: #function)
        let first = bus.subscribe(Self.readings, on: .synchronous) { _ in }
        let second = bus.subscribe(Self.readings, on: .synchronous) { _ in }
        let copy = first
        #expect(first == copy)
        #expect(first != second)
        #expect(Set([first, copy, second]).count == 2)
        first.cancel()
        second.cancel()
        await bus.drain()
        #expect(first == copy, "an ended subscription's handles stay equal")
        #expect(first != second, "and stay different from another's")
        #expect(Set([first, second]).count == 2)
        await bus.shutdown()
    }
}
