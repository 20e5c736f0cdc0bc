// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// Ported from Causality's StateTests, in our API: when a state's subscribers hear of it, in each
/// context, and what counts as a change.
@Suite("Seed suite: Causality states")
struct SeedSuiteCausalityStateTests {
    @Test(
        "C3: nothing reaches a subscriber before the first set; a later subscriber gets the value once",
        arguments: [DeliveryContext.synchronous, .requesterThread, .listenerThread])
    func currentValueOnSubscribe(context: DeliveryContext) async {
        let bus = EventBus(label: "seed-causality-replay")
        let state = EventState<Text>(label: "Foo")
        let early = CoreRecorder<Text>()
        bus.subscribe(state, on: context) { early.append($0) }
        await bus.drain()
        #expect(early.values.isEmpty)
        let value = Text(string: "Hello world!")
        bus.set(state, to: value)
        let late = CoreRecorder<Text>()
        bus.subscribe(state, on: context) { late.append($0) }
        if context == .synchronous { #expect(late.values == [value], "before subscribe returned") }
        await bus.drain()
        #expect(early.values == [value])
        #expect(late.values == [value])
        await bus.shutdown()
    }

    @Test("C3: only consecutive equal values are skipped: A, A, B, A notifies A, B, A")
    func returnToAnEarlierValue() async {
        let bus = EventBus(label: "seed-causality-aba")
        let state = EventState<String>(label: "aba")
        let received = CoreRecorder<String>()
        bus.subscribe(state, on: .synchronous) { received.append($0) }
        #expect(bus.set(state, to: "A"))
        #expect(!bus.set(state, to: "A"))
        #expect(bus.set(state, to: "B"))
        #expect(bus.set(state, to: "A"))
        #expect(received.values == ["A", "B", "A"])
        await bus.shutdown()
    }

    @Test("C4: a state handler that cancels itself during the replay gets the current value only")
    func cancelDuringReplay() async {
        let bus = EventBus(label: "seed-causality-state-cancel")
        let state = EventState<Int>(label: "cancel")
        let received = CoreRecorder<Int>()
        bus.set(state, to: 1)
        let oneShot = bus.subscribe(state, on: .synchronous) { subscription, value in
            received.append(value)
            subscription.cancel()
        }
        bus.set(state, to: 2)
        await bus.drain()
        #expect(received.values == [1])
        #expect(!oneShot.isActive)
        await bus.shutdown()
    }

    @Test("A1/C3: a values stream made before any value starts with the first set, skipping equal ones")
    func streamWithoutCurrentValue() async {
        let bus = EventBus(label: "seed-causality-values")
        let state = EventState<String>(label: "empty")
        let stream = bus.values(of: state)
        bus.set(state, to: "first")
        bus.set(state, to: "first")
        bus.set(state, to: "second")
        var received: [String] = []
        for await value in stream {
            received.append(value)
            if received.count == 2 { break }
        }
        #expect(received == ["first", "second"])
        await bus.shutdown()
    }
}

extension SeedSuiteCausalityStateTests {
    struct Text: Equatable, Sendable { let string: String }
}
