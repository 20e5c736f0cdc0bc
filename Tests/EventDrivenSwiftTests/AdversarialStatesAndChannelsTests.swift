// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: states and channels")
struct AdversarialStatesAndChannelsTests {
    @Test(
        "C3/C4: a synchronous state handler subscribes another synchronous subscriber: it gets the current value, then each change once"
    )
    func subscribeInsideStateHandler() async {
        let bus = EventBus(label: "adv-stateNested")
        let state = EventState<Int>(label: "adv-level")
        let outer = CoreRecorder<Int>()
        let inner = CoreRecorder<Int>()
        let innerHandle = LockedValue<ChannelSubscription?>(nil)
        bus.subscribe(state, on: .synchronous) { (value: Int) in
            outer.append(value)
            if value == 1 {
                innerHandle.withLock {
                    $0 = bus.subscribe(state, on: .synchronous) { (value: Int) in inner.append(value) }
                }
            }
        }
        #expect(bus.set(state, to: 1))
        #expect(inner.values == [1])
        #expect(!bus.set(state, to: 1))
        #expect(bus.set(state, to: 2))
        #expect(bus.set(state, to: 3))
        #expect(outer.values == [1, 2, 3])
        #expect(inner.values == [1, 2, 3])
        await bus.shutdown()
        #expect(innerHandle.withLock { $0 }?.isActive == false)
    }

    @Test(
        "C3: a listener-thread state handler subscribes a listener-thread subscriber while values change: it never goes back and ends at the last value"
    )
    func subscribeInsideStateHandlerAsync() async throws {
        let bus = EventBus(label: "adv-stateNestedThread")
        let state = EventState<Int>(label: "adv-level")
        let inner = CoreRecorder<Int>()
        let subscribed = LockedValue(false)
        bus.subscribe(state, on: .listenerThread) { (value: Int) in
            let first = subscribed.withLock { was in
                defer { was = true }
                return !was
            }
            if first {
                bus.subscribe(state, on: .listenerThread) { (value: Int) in inner.append(value) }
            }
        }
        for value in 1...200 { bus.set(state, to: value) }
        try await bus.waitUntilQuiet(timeout: .seconds(10))
        let seen = inner.values
        #expect(seen.last == 200)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "went back or repeated: \(seen)")
        await bus.shutdown()
    }

    @Test(
        "C3: a state handler that sets the state: an equal value notifies no one, a different value reaches every subscriber in order"
    )
    func reentrantStateSetOnEveryContext() async throws {
        let bus = EventBus(label: "adv-stateReentrant")
        let letters = bus.deadLetters()
        let state = EventState<Int>(label: "adv-counter")
        let watcher = CoreRecorder<Int>()
        bus.subscribe(state, on: .listenerThread) { (value: Int) in
            _ = bus.set(state, to: value)  // equal: nobody
            if value < 30 { _ = bus.set(state, to: value + 1) }
        }
        bus.subscribe(state, on: .queue(DispatchQueue(label: "adv-watch"))) { (value: Int) in watcher.append(value) }
        bus.set(state, to: 0)
        try await bus.waitUntilQuiet(timeout: .seconds(10))
        #expect(bus.value(of: state) == 30)
        let seen = watcher.values
        #expect(seen.last == 30)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "\(seen)")
        let ledger = await AccountingLedger.close(bus, letters: letters)
        ledger.expectLettersMatchCounters()
        #expect(ledger.statistics.failed == 0 && ledger.statistics.dropped == 0, "\(ledger.statistics)")
    }

    @Test(
        "C3: a late subscriber on every context gets the current value once, not the equal re-sets; the replay counts as one delivery",
        arguments: [AdvMode.synchronous, .listenerThread, .taskThread, .requester, .queue, .thread])
    func lateSubscriberReplay(mode: AdvMode) async {
        let bus = EventBus(label: "adv-replay-\(mode)")
        let letters = bus.deadLetters()
        let host = AdvHost(bus: bus)
        let context = mode.subscriptionContext(host: host, queueLabel: "adv-replay")
        let state = EventState<String>(label: "adv-mode")
        #expect(bus.set(state, to: "a"))
        #expect(!bus.set(state, to: "a"))
        let seen = CoreRecorder<String>()
        let subscription = bus.subscribe(state, on: context) { (value: String) in seen.append(value) }
        #expect(!bus.set(state, to: "a"))
        await bus.drain()
        #expect(seen.values == ["a"])
        #expect(bus.set(state, to: "b"))
        await bus.drain()
        #expect(seen.values == ["a", "b"])
        subscription.cancel()
        #expect(bus.set(state, to: "c"))
        await bus.drain()
        #expect(seen.values == ["a", "b"])
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == 2, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }

    @Test(
        "C4: one-shot channel subscriptions cancel themselves on every context: exactly one message each, all accounted for",
        arguments: [AdvMode.synchronous, .listenerThread, .requester, .queue, .thread])
    func oneShotChannel(mode: AdvMode) async {
        let bus = EventBus(label: "adv-oneShot-\(mode)")
        let letters = bus.deadLetters()
        let host = AdvHost(bus: bus)
        let context = mode.subscriptionContext(host: host, queueLabel: "adv-oneShot")
        let channel = EventChannel<Int>(label: "adv-once")
        let got = (0..<10).map { _ in CoreRecorder<Int>() }
        for index in 0..<10 {
            bus.subscribe(channel, on: context) { (subscription: ChannelSubscription, message: Int) in
                got[index].append(message)
                subscription.cancel()
            }
        }
        for message in 0..<30 { bus.publish(channel, message) }
        await bus.drain()
        for recorder in got { #expect(recorder.values == [0]) }
        #expect(bus.subscriberCount(for: channel) == 0)
        let ledger = await AccountingLedger.close(bus, letters: letters)
        let s = ledger.statistics
        #expect(s.delivered == 10, "\(s)")
        // Each message reached its subscribers (10 pairs each while they were registered) or nobody.
        #expect(s.failed == 0 && s.dropped == 0, "\(s)")
        ledger.expectLettersMatchCounters()
    }
}
