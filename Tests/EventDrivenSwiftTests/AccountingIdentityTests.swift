// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization
import Testing

/// The accounting identity of issue 13: every (event, subscriber) pair ends in exactly one
/// outcome, and every outcome that is a dead letter is posted once.
@Suite("R1/R4: the accounting identity (issue 13)")
struct AccountingIdentityTests {
    private struct Parcel: Eventable { let value: Int }
    private struct Refused: Error {}

    /// An EventThread whose callback can be held, with a bounded mailbox that drops the newest.
    private final class Small: EventThread, @unchecked Sendable {  // `gate` is Sendable and immutable
        let gate = CoreGate()
        override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 10, whenFull: .dropNewest) }
        override func registerEventListeners() {
            let gate = gate
            addEventCallback(Parcel.self) { (parcel: Parcel, _: EventMetadata) throws in
                if parcel.value == -1 { gate.block() }
                if parcel.value % 7 == 0 { throw Refused() }
            }
        }
    }

    /// A pool's worker: counts nothing, handles every parcel.
    private final class ParcelWorker: EventThread, @unchecked Sendable {  // no state of its own
        override func registerEventListeners() {
            addEventCallback(Parcel.self) { (_: Parcel, _: EventMetadata) in }
        }
    }

    /// An actor whose listener runs on it (the closure uses the actor's state).
    private actor ParcelActor {
        var count = 0
        func listen(on bus: EventBus) -> EventListenerHandle {
            bus.listen(Parcel.self) { _, _ in self.count += 1 }
        }
    }

    /// A consumer that takes every parcel, on the dispatching thread.
    private final class ParcelConsumer: EventConsumer {
        let consumed = Atomic<Int>(0)
        var willConsume: [any Eventable.Type] { [Parcel.self] }
        func consume(_ event: any Eventable) { consumed.add(1, ordering: .relaxed) }
    }

    @Test(
        "R1/R4 (issue 13): subscribers of fifteen kinds and interests (seventeen with a main-actor listener and a consumer), owners freed, listeners removed, streams abandoned, shutdown graceful or immediate: dispatched × subscribers = every outcome, letters = counters",
        arguments: [false, true], [false, true])
    func identity(immediately: Bool, mainActorAndConsumer: Bool) async {
        final class Owner: Sendable {}
        let bus = EventBus(label: #function)
        let stream = bus.deadLetters()
        let gate = CoreGate()
        let small = Small(bus: bus)
        var owner: Owner? = Owner()
        let evenOnly: TypedEventFilterCallback<Parcel> = { parcel, _, _ in parcel.value.isMultiple(of: 2) }
        // Fifteen subscribers, every one registered for every dispatch below.
        bus.listen(Parcel.self, executeOn: .listenerThread) { parcel, _ in if parcel.value == -1 { gate.block() } }
        bus.listen(Parcel.self, executeOn: .listenerThread, interestedIn: .latestOnly) { _, _ in }
        bus.listen(Parcel.self, executeOn: .listenerThread, interestedIn: .youngerThan, maximumAge: 1) { _, _ in }
        bus.listen(Parcel.self, owner: owner, executeOn: .listenerThread) { _, _ in }
        let removed = bus.listen(Parcel.self, executeOn: .listenerThread) { _, _ in }
        bus.listen(Parcel.self, executeOn: .taskThread, interestedIn: .custom, customFilter: evenOnly) { _, _ in }
        bus.listen(Parcel.self, executeOn: .synchronous) { (parcel: Parcel, _: EventMetadata) throws in
            if parcel.value % 5 == 0 { throw Refused() }
        }
        bus.listenAsync(Parcel.self) { (parcel: Parcel) async throws in
            if parcel.value % 3 == 0 { throw Refused() }
        }
        var kept: EventStream<Parcel>? = bus.events(of: Parcel.self, bufferingPolicy: .bufferingNewest(50))
        var abandoned: EventStream<Parcel>? = bus.events(of: Parcel.self)
        // A pool, an actor listener, a listener's own serial context, a queue of the caller's.
        let pool = EventPool<ParcelWorker>(capacity: 2, bus: bus)
        let onActor = await ParcelActor().listen(on: bus)
        bus.listen(Parcel.self, executeOn: .requesterThread) { _, _ in }
        bus.listen(Parcel.self, executeOn: .queue(DispatchQueue(label: "accounting"))) { _, _ in }
        // A main-actor listener, and a consumer (which is no listener: it runs first, on the
        // dispatching thread, and its consumption counts as a delivery).
        let consumer = ParcelConsumer()
        if mainActorAndConsumer {
            bus.listen(Parcel.self, executeOn: .mainActor) { _, _ in }
            bus.register(consumer)
        }
        let listeners = mainActorAndConsumer ? 16 : 15
        #expect(bus.subscriberCount(for: Parcel.self) == listeners)
        let subscribers = mainActorAndConsumer ? listeners + 1 : listeners
        // Hold the serial receivers, then dispatch from four producers.
        bus.queue(Parcel(value: -1))
        await gate.waitUntilEntered()
        await small.gate.waitUntilEntered()
        let perProducer = coreUnderThreadSanitizer ? 200 : 2_000
        await coreOnThreads(4) { producer in
            for index in 0..<perProducer { bus.queue(Parcel(value: producer * perProducer + index)) }
        }
        // While everything waits: free the owner, remove a listener, abandon a stream.
        owner = nil
        removed.cancel()
        abandoned = nil
        await Self.take(20, from: kept!)
        kept = nil
        gate.open()
        small.gate.open()
        if !immediately { await bus.drain() }
        let ledger = await AccountingLedger.close(bus, immediately: immediately, letters: stream)
        small.cancel()
        _ = (abandoned, kept, pool, onActor)
        let dispatched = 1 + 4 * perProducer
        #expect(consumer.consumed.load(ordering: .relaxed) == (mainActorAndConsumer ? dispatched : 0))
        #expect(ledger.statistics.undelivered == 0 && ledger.statistics.rejected == 0)
        #expect(ledger.outcomes == dispatched * subscribers, "\(ledger.statistics)")
        #expect(ledger.statistics.dropped > 0 && ledger.statistics.discarded > 0)
        if !immediately { #expect(ledger.statistics.ownerReleased > 0 && ledger.statistics.failed > 0) }
        ledger.expectLettersMatchCounters()
    }

    /// Takes `count` events from `stream`, then lets go of its iterator.
    private static func take(_ count: Int, from stream: EventStream<Parcel>) async {
        var taken = 0
        for await _ in stream {
            taken += 1
            if taken == count { break }
        }
    }
}
