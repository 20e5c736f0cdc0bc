// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

/// Causality's README, written in our API.
private struct InterestingMessage: Sendable, Equatable {
    let string: String
    let number: Int
}

private enum MyEvents {
    static let aTriggerEvent = EventChannel<NoMessage>(label: "A Trigger")
    static let myInterestingEvent = EventChannel<InterestingMessage>(label: "An interesting Event 1")
    static let myStringEvent = EventChannel<String>(label: "An event with a String message")
    static let myNumberEvent = EventChannel<Int>(label: "An event with an Int message")
    /// Causality's dynamic event `MyEvent<InterestingMessage>(eventId:)`.
    static func event(_ eventId: Int) -> EventChannel<InterestingMessage> {
        EventChannel(label: "MyEvent", key: eventId)
    }
}

/// Records the thread of its callbacks, to compare with a channel handler run on it.
private final class ProbeThread: EventThread, @unchecked Sendable {  // `threadIDs` is a lock-guarded log
    struct Probe: Eventable {}
    let threadIDs = CoreRecorder<UInt>()

    override func registerEventListeners() {
        addEventCallback(Probe.self) { [threadIDs] _, _ in threadIDs.append(coreThreadID()) }
    }
}

@Suite("Channels")
struct ChannelTests {
    // MARK: C1 typed, labelled channels

    @Test("C1: README trigger event with no message")
    func triggerEvent() {
        let bus = EventBus(label: "C1-trigger")
        let triggered = CoreRecorder<Bool>()
        let subscription = bus.subscribe(MyEvents.aTriggerEvent, on: .synchronous) { _ in triggered.append(true) }
        bus.publish(MyEvents.aTriggerEvent)
        #expect(triggered.count == 1)
        #expect(subscription.isActive)
    }

    @Test("C1: README interesting message reaches its subscriber typed")
    func interestingMessage() async {
        let bus = EventBus(label: "C1-interesting")
        let received = CoreRecorder<InterestingMessage>()
        let subscription = bus.subscribe(MyEvents.myInterestingEvent) { interestingMessage in
            received.append(interestingMessage)
        }
        bus.publish(MyEvents.myInterestingEvent, InterestingMessage(string: "Hello", number: 42))
        await bus.drain()
        #expect(received.values == [InterestingMessage(string: "Hello", number: 42)])

        subscription.cancel()
        bus.publish(MyEvents.myInterestingEvent, InterestingMessage(string: "Again", number: 1))
        await bus.drain()
        #expect(received.count == 1)
        #expect(!subscription.isActive)
    }

    @Test("C1: README local buses are isolated from each other and from the shared bus")
    func localBuses() async {
        let newEventBus = EventBus(label: "My local bus")
        let other = EventBus(label: "C1-other")
        let onLocal = CoreRecorder<Int>()
        let onOther = CoreRecorder<Int>()
        let onShared = CoreRecorder<String>()
        // Other tests may publish on the shared bus: this one looks only for its own marker.
        let marker = "local-only-\(UUID())"
        newEventBus.subscribe(MyEvents.myInterestingEvent, on: .synchronous) { onLocal.append($0.number) }
        other.subscribe(MyEvents.myInterestingEvent, on: .synchronous) { onOther.append($0.number) }
        let shared = EventCentral.shared.subscribe(MyEvents.myInterestingEvent, on: .synchronous) {
            if $0.string == marker { onShared.append($0.string) }
        }
        newEventBus.publish(MyEvents.myInterestingEvent, InterestingMessage(string: marker, number: 42))
        #expect(onLocal.values == [42])
        #expect(onOther.values.isEmpty)
        #expect(onShared.values.isEmpty)
        shared.cancel()
    }

    @Test("C1: the same message type travels on different channels without mixing")
    func sameTypeDifferentLabels() {
        let bus = EventBus(label: "C1-labels")
        let first = EventChannel<String>(label: "first")
        let second = EventChannel<String>(label: "second")
        let onFirst = CoreRecorder<String>()
        let onSecond = CoreRecorder<String>()
        bus.subscribe(first, on: .synchronous) { onFirst.append($0) }
        bus.subscribe(second, on: .synchronous) { onSecond.append($0) }
        bus.publish(first, "a")
        bus.publish(second, "b")
        bus.publish(MyEvents.myStringEvent, "c")
        #expect(onFirst.values == ["a"])
        #expect(onSecond.values == ["b"])
    }

    @Test("C1: one label with two message types is two channels, and channels are values")
    func labelAndTypeMakeIdentity() {
        let bus = EventBus(label: "C1-types")
        let numbers = CoreRecorder<Int>()
        let strings = CoreRecorder<String>()
        bus.subscribe(EventChannel<Int>(label: "shared"), on: .synchronous) { numbers.append($0) }
        bus.subscribe(EventChannel<String>(label: "shared"), on: .synchronous) { strings.append($0) }
        bus.publish(EventChannel<Int>(label: "shared"), 7)
        #expect(numbers.values == [7])
        #expect(strings.values.isEmpty)
        #expect(EventChannel<Int>(label: "shared") == EventChannel<Int>(label: "shared"))
        #expect(bus.subscriberCount(for: EventChannel<Int>(label: "shared")) == 1)
    }

    @Test("C1: a message nobody subscribed to is counted as undelivered")
    func undeliveredMessage() {
        let bus = EventBus(label: "C1-undelivered")
        bus.publish(MyEvents.myNumberEvent, 1)
        #expect(bus.statistics.undelivered == 1)
    }

    // MARK: C2 keyed channels

    @Test("C2: README dynamic event: equal keys are one channel, different keys never mix")
    func keyedChannels() {
        let bus = EventBus(label: "C2-keys")
        let first = CoreRecorder<String>()
        let second = CoreRecorder<String>()
        bus.subscribe(MyEvents.event(1), on: .synchronous) { first.append($0.string) }
        bus.subscribe(MyEvents.event(2), on: .synchronous) { second.append($0.string) }
        bus.publish(MyEvents.event(1), InterestingMessage(string: "Hello", number: 42))
        bus.publish(MyEvents.event(2), InterestingMessage(string: "Two", number: 2))
        #expect(first.values == ["Hello"])
        #expect(second.values == ["Two"])
        #expect(MyEvents.event(1) == MyEvents.event(1))
        #expect(MyEvents.event(1) != MyEvents.event(2))
    }

    @Test("C2: keys whose hashes collide are still separate channels")
    func collidingKeys() {
        let bus = EventBus(label: "C2-collide")
        let one = EventChannel<Int>(label: "player", key: CollidingKey(id: 1))
        let two = EventChannel<Int>(label: "player", key: CollidingKey(id: 2))
        #expect(CollidingKey(id: 1).hashValue == CollidingKey(id: 2).hashValue)
        let onOne = CoreRecorder<Int>()
        let onTwo = CoreRecorder<Int>()
        bus.subscribe(one, on: .synchronous) { onOne.append($0) }
        bus.subscribe(two, on: .synchronous) { onTwo.append($0) }
        bus.publish(one, 1)
        bus.publish(two, 2)
        bus.publish(EventChannel<Int>(label: "player", key: CollidingKey(id: 1)), 11)
        #expect(onOne.values == [1, 11])
        #expect(onTwo.values == [2])
    }

    @Test("C2: a keyed channel never meets the unkeyed channel or a key of another type")
    func keyKinds() {
        let bus = EventBus(label: "C2-kinds")
        let unkeyed = CoreRecorder<Int>()
        let intKey = CoreRecorder<Int>()
        let stringKey = CoreRecorder<Int>()
        bus.subscribe(EventChannel<Int>(label: "p"), on: .synchronous) { unkeyed.append($0) }
        bus.subscribe(EventChannel<Int>(label: "p", key: 1), on: .synchronous) { intKey.append($0) }
        bus.subscribe(EventChannel<Int>(label: "p", key: "1"), on: .synchronous) { stringKey.append($0) }
        bus.publish(EventChannel<Int>(label: "p", key: 1), 10)
        bus.publish(EventChannel<Int>(label: "p", key: "1"), 20)
        bus.publish(EventChannel<Int>(label: "p"), 30)
        #expect(intKey.values == [10])
        #expect(stringKey.values == [20])
        #expect(unkeyed.values == [30])
    }

    // MARK: C4 one-shot handlers

    @Test("C4: README one-shot handler ends its own subscription")
    func oneShot() async {
        let bus = EventBus(label: "C4-oneshot")
        let strings = CoreRecorder<String>()
        let subscription = bus.subscribe(MyEvents.myStringEvent) { subscription, string in
            strings.append(string)
            subscription.cancel()
        }
        bus.publish(MyEvents.myStringEvent, "first")
        bus.publish(MyEvents.myStringEvent, "second")
        bus.publish(MyEvents.myStringEvent, "third")
        await bus.drain()
        #expect(strings.values == ["first"])
        #expect(!subscription.isActive)
        #expect(bus.subscriberCount(for: MyEvents.myStringEvent) == 0)
    }

    @Test("C4: the handler's subscription is the one subscribe returned")
    func handlerSeesItsSubscription() {
        let bus = EventBus(label: "C4-identity")
        let seen = CoreRecorder<ChannelSubscription>()
        let subscription = bus.subscribe(MyEvents.myNumberEvent, on: .synchronous) { subscription, _ in
            seen.append(subscription)
        }
        bus.publish(MyEvents.myNumberEvent, 1)
        #expect(seen.values == [subscription])
    }

    // MARK: C5 where handlers run

    @Test("C5: .synchronous runs on the publisher's thread before publish returns")
    func synchronousContext() async {
        let bus = EventBus(label: "C5-sync")
        let threads = CoreRecorder<UInt>()
        bus.subscribe(MyEvents.myNumberEvent, on: .synchronous) { _ in threads.append(coreThreadID()) }
        let publisher = await withCheckedContinuation { (continuation: CheckedContinuation<UInt, Never>) in
            Thread {
                bus.publish(MyEvents.myNumberEvent, 1)
                #expect(threads.count == 1)
                continuation.resume(returning: coreThreadID())
            }.start()
        }
        #expect(threads.values == [publisher])
    }

    @Test("C5: .queue runs on that queue, one at a time and in order, even on a concurrent queue")
    func queueContext() async {
        let bus = EventBus(label: "C5-queue")
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "C5-queue", attributes: .concurrent)
        queue.setSpecific(key: key, value: "mine")
        let seen = CoreRecorder<Int>()
        let onQueue = CoreRecorder<Bool>()
        bus.subscribe(MyEvents.myNumberEvent, on: .queue(queue)) { number in
            onQueue.append(DispatchQueue.getSpecific(key: key) == "mine")
            seen.append(number)
        }
        for number in 0..<100 { bus.publish(MyEvents.myNumberEvent, number) }
        await bus.drain()
        #expect(seen.values == Array(0..<100))
        #expect(onQueue.values.allSatisfy { $0 })
    }

    @Test("C5: .thread runs on that EventThread")
    func threadContext() async {
        let bus = EventBus(label: "C5-thread")
        let thread = ProbeThread(bus: bus)
        let threads = CoreRecorder<UInt>()
        let subscription = bus.subscribe(MyEvents.myNumberEvent, on: .thread(thread)) { _ in
            threads.append(coreThreadID())
        }
        bus.queue(ProbeThread.Probe())
        bus.publish(MyEvents.myNumberEvent, 1)
        await bus.drain()
        #expect(threads.count == 1)
        #expect(threads.values == thread.threadIDs.values)
        subscription.cancel()
        thread.cancel()
    }

    @Test("C5: .mainActor runs on the main thread")
    func mainActorContext() async {
        let bus = EventBus(label: "C5-main")
        // On Linux the main queue may be drained by a thread other than the process's first one
        // (after `dispatchMain()`), so the test asks the queue, not the thread.
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let onMain = CoreRecorder<Bool>()
        bus.subscribe(MyEvents.myNumberEvent, on: .mainActor) { _ in
            onMain.append(DispatchQueue.getSpecific(key: key) == "main")
        }
        bus.publish(MyEvents.myNumberEvent, 1)
        await bus.drain()
        #expect(onMain.values == [true])
    }

    @Test("C5: .taskThread, .listenerThread and .requesterThread deliver every message")
    func otherContexts() async {
        let bus = EventBus(label: "C5-others")
        let seen = CoreRecorder<String>()
        bus.subscribe(MyEvents.myNumberEvent, on: .taskThread) { _ in seen.append("task") }
        bus.subscribe(MyEvents.myNumberEvent, on: .listenerThread) { _ in seen.append("listener") }
        bus.subscribe(MyEvents.myNumberEvent, on: .requesterThread) { _ in seen.append("requester") }
        bus.publish(MyEvents.myNumberEvent, 1)
        await bus.drain()
        #expect(seen.values.sorted() == ["listener", "requester", "task"])
    }

    // MARK: Bugs not to repeat

    @Test("C1: a handler that publishes, subscribes and sets a state on the bus neither crashes nor deadlocks")
    func handlerUsesTheBus() async {
        let bus = EventBus(label: "C1-reentrant")
        let echo = EventChannel<Int>(label: "echo")
        let state = EventState<Int>(label: "last")
        let echoed = CoreRecorder<Int>()
        bus.subscribe(echo, on: .synchronous) { echoed.append($0) }
        bus.subscribe(MyEvents.myNumberEvent, on: .synchronous) { number in
            bus.publish(echo, number * 10)
            bus.set(state, to: number)
            bus.subscribe(echo, on: .synchronous) { _ in }.cancel()
        }
        bus.subscribe(MyEvents.myNumberEvent) { number in bus.publish(echo, number * 100) }
        bus.publish(MyEvents.myNumberEvent, 1)
        await bus.drain()
        await bus.drain()
        #expect(echoed.values == [10, 100])
        #expect(bus.value(of: state) == 1)
    }

    @Test("C1: publishing and subscribing from many threads at once is safe")
    func concurrentUse() async {
        let bus = EventBus(label: "C1-concurrent")
        let channel = EventChannel<Int>(label: "load", key: 7)
        let counted = CoreRecorder<Int>()
        bus.subscribe(channel, on: .synchronous) { counted.append($0) }
        bus.subscribe(channel, on: .listenerThread) { counted.append($0) }
        await coreOnThreads(8) { index in
            for number in 0..<200 {
                bus.publish(channel, number)
                bus.subscribe(channel, on: .synchronous) { _ in }.cancel()
                if number % 50 == 0 { bus.publish(EventChannel<Int>(label: "load", key: 100 + index), number) }
            }
        }
        await bus.drain()
        #expect(counted.count == 2 * 8 * 200)
        #expect(bus.subscriberCount(for: channel) == 2)
    }
}
