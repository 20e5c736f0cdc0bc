// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// A publish finds its channel without a lock when it publishes on the channel value (or a copy
/// of it) the channel was first subscribed with, and by equality otherwise: every equal channel
/// value reaches the same subscribers, whichever was used to subscribe, whichever remains.
@Suite("C1/C2: finding a channel's subscribers, whatever channel value publishes")
struct ChannelLookupTests {
    @Test("equal channel values made apart reach the same subscribers, before and after the first subscriber leaves")
    func equalValuesMadeApart() {
        let bus = EventBus(label: #function)
        let seen = CoreRecorder<String>()
        let first = bus.subscribe(EventChannel<Int>(label: "lookup"), on: .synchronous) { seen.append("first \($0)") }
        bus.subscribe(EventChannel<Int>(label: "lookup"), on: .synchronous) { seen.append("second \($0)") }
        bus.publish(EventChannel<Int>(label: "lookup"), 1)
        first.cancel()
        // The route's key was the first subscriber's channel value; what remains is found by equality.
        bus.publish(EventChannel<Int>(label: "lookup"), 2)
        #expect(seen.values == ["first 1", "second 1", "second 2"])
        #expect(bus.statistics.delivered == 3)
    }

    @Test("a channel emptied and subscribed again with another value is found by both values")
    func resubscribedWithAnotherValue() {
        let bus = EventBus(label: #function)
        let old = EventChannel<Int>(label: "lookup", key: 7)
        let new = EventChannel<Int>(label: "lookup", key: 7)
        let seen = CoreRecorder<Int>()
        bus.subscribe(old, on: .synchronous) { seen.append($0) }.cancel()
        bus.publish(old, 1)
        bus.subscribe(new, on: .synchronous) { seen.append($0 * 10) }
        bus.publish(old, 2)
        bus.publish(new, 3)
        bus.publish(EventChannel<Int>(label: "lookup", key: 8), 4)
        #expect(seen.values == [20, 30])
        #expect(bus.statistics.undelivered == 2, "1 while nobody subscribed, 4 on another key")
    }

    @Test("publishing from four threads while subscribers come and go: every message is delivered or undelivered")
    func publishWhileSubscribing() async {
        let bus = EventBus(label: #function)
        let channel = EventChannel<Int>(label: "churn")
        let delivered = CoreCounter()
        let kept = bus.subscribe(channel, on: .synchronous) { _ in delivered.increment() }
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask {
                    // Half the publishers use a channel value made apart: the lookup by equality.
                    let mine = producer.isMultiple(of: 2) ? channel : EventChannel<Int>(label: "churn")
                    for value in 0..<2_000 { bus.publish(mine, value) }
                }
            }
            group.addTask {
                for _ in 0..<200 {
                    bus.subscribe(EventChannel<Int>(label: "churn"), on: .synchronous) { _ in delivered.increment() }
                        .cancel()
                }
            }
        }
        kept.cancel()
        let statistics = bus.statistics
        #expect(delivered.count >= 8_000, "the kept subscriber had every message, whichever value published it")
        #expect(statistics.delivered == delivered.count, "\(statistics)")
        #expect(statistics.undelivered == 0, "every message had the kept subscriber: \(statistics)")
        await bus.shutdown()
    }
}
