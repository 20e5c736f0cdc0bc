// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// Ported from Causality's EventTests, in our API: a channel keeps no message, and a handler may
/// end its own subscription or another's while messages wait.
@Suite("Seed suite: Causality channels")
struct SeedSuiteCausalityChannelTests {
    @Test("C1: a subscriber made after a publish gets nothing: a channel keeps no message")
    func noReplay() async {
        let bus = EventBus(label: "seed-causality-after")
        let received = CoreCounter()
        bus.publish(Self.greeting, Message(text: "Hello!"))
        bus.subscribe(Self.greeting) { _ in received.increment() }
        await bus.drain()
        #expect(received.count == 0)
        await bus.shutdown()
    }

    /// ChannelTests checks the README one-shot handler in the default context; here every context.
    @Test(
        "C4: a handler that cancels its own subscription runs once, in every context",
        arguments: [DeliveryContext.synchronous, .requesterThread, .listenerThread, .taskThread])
    func oneShotInEveryContext(context: DeliveryContext) async {
        let bus = EventBus(label: "seed-causality-oneshot")
        let received = CoreCounter()
        let subscription = bus.subscribe(Self.greeting, on: context) { subscription, _ in
            received.increment()
            subscription.cancel()
        }
        bus.publish(Self.greeting, Message(text: "first"))
        bus.publish(Self.greeting, Message(text: "second"))
        await bus.drain()
        // Tasks run concurrently: both may have started before the first cancel.
        #expect(context == .taskThread ? (1...2).contains(received.count) : received.count == 1)
        #expect(!subscription.isActive)
        await bus.shutdown()
    }

    @Test("C4: a handler that cancels another subscription skips its waiting messages")
    func cancelAnotherDuringDispatch() async {
        let bus = EventBus(label: "seed-causality-removal")
        let thread = SeedThread(bus: bus)
        let channel = EventChannel<Int>(label: "removal")
        let log = CoreRecorder<String>()
        let victim = LockedValue<ChannelSubscription?>(nil)
        bus.subscribe(channel, on: .thread(thread)) { n in
            log.append("canceller \(n)")
            victim.withLock { $0?.cancel() }
        }
        victim.withLock { $0 = bus.subscribe(channel, on: .thread(thread)) { n in log.append("victim \(n)") } }
        let gate = CoreGate()
        seedListen(on: bus, .thread(thread), gate: gate, log: log)
        SeedTagged(tag: "gate").queue(on: bus)
        await gate.waitUntilEntered()
        bus.publish(channel, 1)
        bus.publish(channel, 2)
        gate.open()
        await bus.drain()
        #expect(log.values == ["canceller 1", "canceller 2"])
        _ = thread.cancel()
        await bus.shutdown()
    }
}

extension SeedSuiteCausalityChannelTests {
    struct Message: Sendable { let text: String }
    static let greeting = EventChannel<Message>(label: "Foo")
}
