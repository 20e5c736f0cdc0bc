// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing

@testable import EventDrivenSwift

@Suite("A1: streams of channels and states")
struct ChannelStreamTests {
    @Test("A1/C2: a keyed channel's stream gets its own messages in order, not another key's")
    func channelStream() async {
        let bus = EventBus(label: "channel-stream")
        let kitchen = EventChannel<Int>(label: "Readings", key: "kitchen")
        let cellar = EventChannel<Int>(label: "Readings", key: "cellar")
        let stream = bus.messages(of: kitchen)
        for value in 1...5 {
            bus.publish(kitchen, value)
            bus.publish(cellar, -value)
        }
        await bus.shutdown()
        var received: [Int] = []
        for await value in stream { received.append(value) }
        #expect(received == [1, 2, 3, 4, 5])
    }

    @Test("A1/C3: a state's stream starts with the current value and skips equal values")
    func stateStream() async {
        let bus = EventBus(label: "state-stream")
        let temperature = EventState<Int>(label: "Temperature")
        bus.set(temperature, to: 20)
        let stream = bus.values(of: temperature)
        bus.set(temperature, to: 20)
        bus.set(temperature, to: 21)
        bus.set(temperature, to: 22)
        await bus.shutdown()
        var received: [Int] = []
        for await value in stream { received.append(value) }
        #expect(received == [20, 21, 22])
    }

    @Test("A1: cancelling the consuming task ends a state stream and unsubscribes it")
    func cancellingEndsStateStream() async {
        let bus = EventBus(label: "state-stream-cancel")
        let level = EventState<Int>(label: "Level")
        bus.set(level, to: 1)
        let stream = bus.values(of: level)
        #expect(bus.subscriberCount(for: level) == 1)
        let consumer = Task {
            var seen: [Int] = []
            for await value in stream { seen.append(value) }
            return seen
        }
        consumer.cancel()
        let seen = await consumer.value
        #expect(seen.count <= 1)
        #expect(await coreEventually { bus.subscriberCount(for: level) == 0 })
    }
}
