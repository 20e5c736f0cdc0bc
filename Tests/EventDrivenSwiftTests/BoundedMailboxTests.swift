// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization
import Testing

/// Receivers with bounded mailboxes. Each holds its thread busy with event 0 (a gate), fills the
/// mailbox, then opens the gate.
@Suite("R3: bounded mailboxes")
struct BoundedMailboxTests {
    struct Item: Eventable { let value: Int }

    /// Records items; item 0 waits at the gate, so later items pile up in the mailbox.
    class Receiver: EventThread, @unchecked Sendable {  // its state is the thread-safe `seen` and `gate`
        let seen = CoreRecorder<Int>()
        let gate = CoreGate()
        var echo = false

        override func registerEventListeners() {
            addEventCallback(Item.self) { [unowned self] (item: Item, _: EventMetadata) in
                if item.value == 0 { gate.block() }
                seen.append(item.value)
                // More than the capacity at once, from the receiver's own thread.
                if echo && item.value == -1 { for value in 2...6 { bus.queue(Item(value: -value)) } }
            }
        }
    }

    final class Unbounded: Receiver, @unchecked Sendable {}  // inherits Receiver's thread-safe state
    final class DropNewest: Receiver, @unchecked Sendable {  // inherits Receiver's thread-safe state
        override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 3, whenFull: .dropNewest) }
    }
    final class DropOldest: Receiver, @unchecked Sendable {  // inherits Receiver's thread-safe state
        override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 3, whenFull: .dropOldest) }
    }
    final class FailDispatch: Receiver, @unchecked Sendable {  // inherits Receiver's thread-safe state
        override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 2, whenFull: .failDispatch) }
    }
    final class Blocking: Receiver, @unchecked Sendable {  // inherits Receiver's thread-safe state
        override class var mailboxPolicy: EventMailboxPolicy {
            .bounded(capacity: 2, whenFull: .blockProducer(timeout: nil))
        }
    }
    final class BlockingBriefly: Receiver, @unchecked Sendable {  // inherits Receiver's thread-safe state
        override class var mailboxPolicy: EventMailboxPolicy {
            .bounded(capacity: 1, whenFull: .blockProducer(timeout: .milliseconds(20)))
        }
    }

    final class NotWaiting: Receiver, @unchecked Sendable {  // inherits Receiver's thread-safe state
        override class var mailboxPolicy: EventMailboxPolicy {
            .bounded(capacity: 1, whenFull: .blockProducer(timeout: .zero))
        }
    }
    final class NotWaitingNegative: Receiver, @unchecked Sendable {  // inherits Receiver's thread-safe state
        override class var mailboxPolicy: EventMailboxPolicy {
            .bounded(capacity: 1, whenFull: .blockProducer(timeout: .seconds(-1)))
        }
    }

    @Test(
        "R3: blockProducer with a zero or negative timeout does not wait: a full mailbox drops the event at once",
        arguments: ["zero", "negative"])
    func timeoutThatDoesNotWait(timeout: String) async {
        let bus = EventBus(label: "\(#function)-\(timeout)")
        let receiver: Receiver = timeout == "zero" ? NotWaiting(bus: bus) : NotWaitingNegative(bus: bus)
        bus.queue(Item(value: 0))
        await receiver.gate.waitUntilEntered()
        bus.queue(Item(value: 1))  // fills the mailbox
        // The gate stays closed until this returns: a producer that waited would wait forever.
        await coreOnPlainThread { bus.queue(Item(value: 2)) }
        #expect(receiver.droppedEventCount == 1)
        #expect(bus.statistics.dropped == 1)
        receiver.gate.open()
        await bus.drain()
        #expect(receiver.seen.values == [0, 1])
        receiver.cancel()
    }

    @Test("R3: mailboxes are unbounded by default")
    func unboundedByDefault() async {
        let bus = EventBus(label: #function)
        let receiver = Unbounded(bus: bus)
        bus.queue(Item(value: 0))
        await receiver.gate.waitUntilEntered()
        await coreOnPlainThread { for value in 1...10_000 { bus.queue(Item(value: value)) } }
        #expect(receiver.pendingEventCount == 10_001)
        receiver.gate.open()
        await bus.drain()
        #expect(receiver.seen.count == 10_001)
        #expect(bus.statistics.dropped == 0)
        receiver.cancel()
    }

    @Test("R3: dropNewest keeps the events that came first and counts the rest")
    func dropNewest() async {
        let bus = EventBus(label: #function)
        let letters = bus.deadLetters()
        let receiver = DropNewest(bus: bus)
        bus.queue(Item(value: 0))
        await receiver.gate.waitUntilEntered()
        for value in 1...10 { bus.queue(Item(value: value)) }
        receiver.gate.open()
        await bus.drain()
        #expect(receiver.seen.values == [0, 1, 2, 3])
        #expect(bus.statistics.dropped == 7)
        #expect(receiver.droppedEventCount == 7)
        receiver.cancel()
        await bus.shutdown()
        var dropped: [Int] = []
        for await letter in letters where letter.reason == .dropped { dropped.append((letter.event as! Item).value) }
        #expect(dropped == Array(4...10))
    }

    @Test("R3/D3: a bounded receiver's listeners of one type get a stacked event in registration order")
    func stackedEventInRegistrationOrder() async {
        struct Tagged: Eventable { let tag: String }
        let bus = EventBus(label: #function)
        let receiver = DropNewest(bus: bus)
        let order = CoreRecorder<String>()
        let listeners = listenersAB(Tagged.self, on: bus, at: receiver, into: order) { $0.tag }
        bus.queue(Item(value: 0))
        await receiver.gate.waitUntilEntered()
        bus.stack(Tagged(tag: "s"))
        receiver.gate.open()
        await bus.drain()
        #expect(order.values == ["A s", "B s"])
        for listener in listeners { listener.cancel() }
        receiver.cancel()
    }

    /// A bounded receiver that never fills in these tests: what is measured is the order.
    final class Roomy: Receiver, @unchecked Sendable {  // inherits Receiver's thread-safe state
        override class var mailboxPolicy: EventMailboxPolicy {
            .bounded(capacity: 1_000_000, whenFull: .dropNewest)
        }
    }

    @Test("R3/D3: stacked events streaming to a bounded receiver's listeners run each in registration order")
    func streamedStackedEventsInRegistrationOrder() async {
        struct Numbered: Eventable { let index: Int }
        // No gate: the receiver takes the events in batches of any size, so a batch could end
        // in the middle of one event's deliveries if they were pushed one by one.
        let bus = EventBus(label: #function)
        let receiver = Roomy(bus: bus)
        let order = CoreRecorder<String>()
        let listeners = listenersAB(Numbered.self, on: bus, at: receiver, into: order) { "\($0.index)" }
        let events = 20_000
        await coreOnPlainThread { for index in 0..<events { bus.stack(Numbered(index: index)) } }
        await bus.drain()
        let seen = order.values
        #expect(seen.count == 2 * events)
        #expect(isInRegistrationPairs(seen))
        #expect(bus.statistics.dropped == 0)
        for listener in listeners { listener.cancel() }
        receiver.cancel()
    }

    @Test("R3/D3: a bounded receiver runs the original's batch in D3 order, each event's listeners in order")
    func originalBatchWithTwoListeners() async {
        struct Labelled: Eventable { let label: String }
        let bus = EventBus(label: #function)
        let receiver = Roomy(bus: bus)
        let order = CoreRecorder<String>()
        let listeners = listenersAB(Labelled.self, on: bus, at: receiver, into: order) { $0.label }
        bus.queue(Item(value: 0))
        await receiver.gate.waitUntilEntered()
        bus.queue(Labelled(label: "q1"), priority: .normal)
        bus.stack(Labelled(label: "s1"), priority: .normal)
        bus.queue(Labelled(label: "q2"), priority: .high)
        bus.stack(Labelled(label: "s2"), priority: .low)
        bus.stack(Labelled(label: "s3"), priority: .normal)
        bus.queue(Labelled(label: "q3"), priority: .lowest)
        receiver.gate.open()
        await bus.drain()
        let expected = ["s3", "s1", "s2", "q2", "q1", "q3"].flatMap { ["A " + $0, "B " + $0] }
        #expect(order.values == expected)
        for listener in listeners { listener.cancel() }
        receiver.cancel()
    }

    @Test("R3: a full bounded receiver's policy takes or drops an event's deliveries to its listeners together")
    func groupTakenOrDroppedWhole() async {
        struct Tagged: Eventable { let tag: String }
        let bus = EventBus(label: #function)
        let receiver = DropNewest(bus: bus)
        let order = CoreRecorder<String>()
        let listeners = listenersAB(Tagged.self, on: bus, at: receiver, into: order) { $0.tag }
        bus.queue(Item(value: 0))
        await receiver.gate.waitUntilEntered()
        // Capacity 3: two places taken, then a group of two taken whole below the capacity
        // (four pending), then a group of two dropped whole.
        bus.queue(Item(value: 1))
        bus.queue(Item(value: 2))
        bus.stack(Tagged(tag: "kept"))
        bus.stack(Tagged(tag: "dropped"))
        #expect(receiver.pendingEventCount == 5)
        receiver.gate.open()
        await bus.drain()
        #expect(order.values == ["A kept", "B kept"])
        #expect(receiver.seen.values == [0, 1, 2])
        #expect(bus.statistics.dropped == 2)
        #expect(receiver.droppedEventCount == 2)
        for listener in listeners { listener.cancel() }
        receiver.cancel()
    }

    @Test("R3: dropOldest drops the event that waited longest")
    func dropOldest() async {
        let bus = EventBus(label: #function)
        let letters = bus.deadLetters()
        let receiver = DropOldest(bus: bus)
        bus.queue(Item(value: 0))
        await receiver.gate.waitUntilEntered()
        for value in 1...10 { bus.queue(Item(value: value), priority: value % 2 == 0 ? .high : .low) }
        receiver.gate.open()
        await bus.drain()
        #expect(receiver.seen.values == [0, 8, 10, 9])
        #expect(receiver.droppedEventCount == 7)
        receiver.cancel()
        await bus.shutdown()
        var dropped: [Int] = []
        for await letter in letters where letter.reason == .dropped { dropped.append((letter.event as! Item).value) }
        #expect(dropped == Array(1...7))
    }

    @Test("R3: failDispatch makes tryDispatch throw, and plain dispatch report, mailboxFull")
    func failDispatch() async {
        let bus = EventBus(label: #function)
        let errors = coreCollectErrors(on: bus)
        let receiver = FailDispatch(bus: bus)
        let other = CoreRecorder<Int>()
        bus.listen(Item.self, executeOn: .synchronous) { item, _ in other.append(item.value) }
        bus.queue(Item(value: 0))
        await receiver.gate.waitUntilEntered()
        #expect(throws: Never.self) { try bus.tryDispatch(Item(value: 1)) }
        #expect(throws: Never.self) { try bus.tryDispatch(Item(value: 2)) }
        let expected = EventDrivenError.mailboxFull(
            receiver: "EventThread(\(FailDispatch.self))", eventType: String(reflecting: Item.self))
        #expect(throws: expected) { try bus.tryDispatch(Item(value: 3)) }
        bus.queue(Item(value: 4))
        #expect(errors.values == [expected])
        receiver.gate.open()
        await bus.drain()
        #expect(receiver.seen.values == [0, 1, 2])
        #expect(other.values == [0, 1, 2, 3, 4], "other receivers still get the event")
        #expect(bus.statistics.dropped == 2)
        receiver.cancel()
    }

    @Test("R3: blockProducer makes the producer wait until the receiver takes its events; nothing is lost")
    func blockProducer() async {
        let bus = EventBus(label: #function)
        let receiver = Blocking(bus: bus)
        let producer = await startProducerAgainstFullMailbox(bus, receiver, sending: 1...50)
        #expect(receiver.pendingEventCount == 3)
        receiver.gate.open()
        await producer.value
        await bus.drain()
        #expect(receiver.seen.values == Array(0...50))
        #expect(bus.statistics.dropped == 0)
        receiver.cancel()
    }

    @Test("R3: a producer blocked with an event for several listeners pushes it whole once there is room")
    func blockedGroupPushedWhole() async {
        struct Tagged: Eventable { let tag: Int }
        let bus = EventBus(label: #function)
        let receiver = Blocking(bus: bus)
        let order = CoreRecorder<String>()
        let listeners = listenersAB(Tagged.self, on: bus, at: receiver, into: order) { "\($0.tag)" }
        let producer = await startProducerAgainstFullMailbox(bus, receiver, sending: 1...2)
        let stacked = Task { await coreOnThreads(1) { _ in for tag in 1...20 { bus.stack(Tagged(tag: tag)) } } }
        receiver.gate.open()
        await producer.value
        await stacked.value
        await bus.drain()
        let seen = order.values
        #expect(seen.count == 40)
        #expect(isInRegistrationPairs(seen))
        #expect(bus.statistics.dropped == 0)
        for listener in listeners { listener.cancel() }
        receiver.cancel()
    }

    @Test("R3: a blocked producer gives up after its timeout; the event is dropped and reported")
    func blockTimeout() async {
        let bus = EventBus(label: #function)
        let receiver = BlockingBriefly(bus: bus)
        bus.queue(Item(value: 0))
        await receiver.gate.waitUntilEntered()
        #expect(throws: Never.self) { try bus.tryDispatch(Item(value: 1)) }
        #expect(throws: EventDrivenError.self) { try bus.tryDispatch(Item(value: 2)) }
        receiver.gate.open()
        await bus.drain()
        #expect(receiver.seen.values == [0, 1])
        #expect(receiver.droppedEventCount == 1)
        receiver.cancel()
    }

    @Test("R3/D5: a handler dispatching to its own full mailbox never waits for itself")
    func selfDispatch() async {
        let bus = EventBus(label: #function)
        let receiver = Blocking(bus: bus)
        receiver.echo = true
        bus.queue(Item(value: -1))
        for _ in 0..<10 { await bus.drain() }
        #expect(receiver.seen.values == [-1, -2, -3, -4, -5, -6])
        receiver.cancel()
    }

    @Test("R3/R5: shutdown releases blocked producers; their events are discarded and counted")
    func shutdownReleasesProducers() async {
        let bus = EventBus(label: #function)
        let receiver = Blocking(bus: bus)
        let producer = await startProducerAgainstFullMailbox(bus, receiver, sending: 1...5)
        // The shutdown waits for the running callback, whose outcome it counts: let it go once
        // the shutdown has discarded the two pending events.
        async let shutdown: Void = bus.shutdown(immediately: true)
        #expect(await coreEventually { bus.statistics.discarded >= 2 })
        receiver.gate.open()
        await shutdown
        await producer.value
        receiver.cancel()
        let stats = bus.statistics
        #expect(receiver.seen.values == [0])
        #expect(stats.delivered + stats.discarded + stats.rejected == 6)
    }

    /// Listeners "A" then "B" of `type` on `receiver`, each recording its name and `label` of
    /// the event into `order`.
    private func listenersAB<E: Eventable>(
        _ type: E.Type, on bus: EventBus, at receiver: EventThread, into order: CoreRecorder<String>,
        _ label: @escaping @Sendable (E) -> String
    ) -> [EventListenerHandle] {
        ["A", "B"].map { name in
            bus.listen(type, executeOn: .thread(receiver)) { event, _ in order.append(name + " " + label(event)) }
        }
    }

    /// Whether `seen` is a run of pairs `A x`, `B x`: each event's two deliveries one after the
    /// other, in registration order.
    private func isInRegistrationPairs(_ seen: [String]) -> Bool {
        seen.count % 2 == 0
            && stride(from: 0, to: seen.count, by: 2).allSatisfy {
                seen[$0].hasPrefix("A ") && seen[$0 + 1] == "B " + seen[$0].dropFirst(2)
            }
    }

    /// Holds `receiver` busy with event 0, then queues `values` from a plain thread; returns once
    /// that producer has filled the two free places and is blocked at the third.
    private func startProducerAgainstFullMailbox(
        _ bus: EventBus, _ receiver: Blocking, sending values: ClosedRange<Int>
    ) async -> Task<Void, Never> {
        bus.queue(Item(value: 0))
        await receiver.gate.waitUntilEntered()
        let dispatched = CoreCounter()
        let producer = Task {
            await coreOnThreads(1) { _ in
                for value in values {
                    bus.queue(Item(value: value))
                    dispatched.increment()
                }
            }
        }
        #expect(await coreEventually { dispatched.count == 2 && receiver.pendingEventCount == 3 })
        return producer
    }
}
