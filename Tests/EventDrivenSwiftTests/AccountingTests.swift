// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization
import Testing

/// The regression tests of issue 13 ("Nothing lost silently, for real"), one per observed defect.
@Suite("R1/R4: every outcome counted once and posted (issue 13)")
struct AccountingTests {
    private struct Parcel: Eventable { let value: Int }

    /// Every dead letter of `bus` posted until it shuts down.
    private static func letters(of bus: EventBus, _ stream: AsyncStream<DeadLetter>) async -> [DeadLetter] {
        await bus.shutdown()
        var collected: [DeadLetter] = []
        for await letter in stream { collected.append(letter) }
        return collected
    }

    @Test(
        "R1/R4 (issue 13.1): expired deliveries of synchronous and task listeners are dead letters",
        arguments: [DeliveryContext.synchronous, .taskThread])
    func expiredOnEveryKind(kind: DeliveryContext) async {
        let bus = EventBus(label: #function)
        let stream = bus.deadLetters()
        bus.listen(Parcel.self, executeOn: kind, interestedIn: .youngerThan, maximumAge: 1) { _, _ in }
        for value in 0..<100 { bus.queue(Parcel(value: value)) }
        await bus.drain()
        let letters = await Self.letters(of: bus, stream)
        #expect(bus.statistics.expired + bus.statistics.delivered == 100)
        #expect(letters.filter { $0.reason == .expired }.count == bus.statistics.expired)
        #expect(bus.statistics.expired > 0)
    }

    @Test(
        "R1/R4 (issue 13.1): deliveries to a freed owner's synchronous and task listeners are dead letters",
        arguments: [DeliveryContext.synchronous, .taskThread])
    func ownerReleasedOnEveryKind(kind: DeliveryContext) async {
        final class Owner: Sendable {}
        let bus = EventBus(label: #function)
        let stream = bus.deadLetters()
        var owner: Owner? = Owner()
        bus.listen(Parcel.self, owner: owner, executeOn: kind) { _, _ in }
        owner = nil
        bus.queue(Parcel(value: 1))
        await bus.drain()
        let letters = await Self.letters(of: bus, stream)
        #expect(bus.statistics.ownerReleased == 1)
        #expect(letters.map(\.reason) == [.ownerReleased])
    }

    @Test("R1 (issue 13.2): a listener whose owner is freed during the delivery is not counted delivered")
    func ownerFreedBetweenCheckAndCall() async {
        final class Owner: Sendable {
            let calls = Atomic<Int>(0)
            func onParcel(_: Parcel, _: EventPriority, _: DispatchTime) { calls.add(1, ordering: .relaxed) }
        }
        let bus = EventBus(label: #function)
        let stream = bus.deadLetters()
        let calls = CoreCounter()
        let holder = LockedValue<Owner?>(Owner())
        let owner = holder.withLock { $0! }
        // The filter runs after the owner check and before the handler: it frees the owner there.
        let freeOwner: TypedEventFilterCallback<Parcel> = { _, _, _ in
            holder.withLock { $0 = nil }
            return true
        }
        bus.addListener(
            Parcel.self,
            { (owner: Owner) in
                { event, priority, time in
                    calls.increment()
                    owner.onParcel(event, priority, time)
                }
            },
            owner: owner, executeOn: .synchronous, interestedIn: .custom, customFilter: freeOwner)
        _ = consume owner
        bus.dispatchNow(Parcel(value: 1))
        let letters = await Self.letters(of: bus, stream)
        let stats = bus.statistics
        #expect(stats.delivered == calls.count)
        #expect(stats.delivered + stats.ownerReleased == 1)
        #expect(letters.filter { $0.reason == .ownerReleased }.count == stats.ownerReleased)
    }

    @Test("R2 (issue 13.5): 70,000 error reports each cost the same: none grows the handler, none overflows the stack")
    func reportsDoNotGrow() async {
        let bus = EventBus(label: #function)
        let reports = CoreCounter()
        bus.setErrorHandler { _ in reports.increment() }
        await bus.shutdown()
        await coreOnPlainThread { for value in 0..<70_000 { bus.queue(Parcel(value: value)) } }
        #expect(reports.count == 70_000)
        #expect(bus.statistics.rejected == 70_000)
    }

    /// Makes a stream, dispatches `count` events into it, takes `taking` of them and abandons it.
    private static func abandonStream(on bus: EventBus, count: Int, taking: Int) async {
        let stream = bus.events(of: Parcel.self)
        await coreOnPlainThread { for value in 0..<count { bus.queue(Parcel(value: value)) } }
        var taken = 0
        for await _ in stream {
            taken += 1
            if taken == taking { break }
        }
    }

    @Test("R1/R4 (issue 13.3): the events an abandoned stream never yielded are discarded dead letters, not delivered")
    func abandonedStream() async {
        let bus = EventBus(label: #function)
        let stream = bus.deadLetters()
        await Self.abandonStream(on: bus, count: 1_000, taking: 100)
        // Dispatched after the stream was abandoned: nobody listens any more.
        bus.queue(Parcel(value: 1_000))
        let ledger = await AccountingLedger.close(bus, letters: stream)
        #expect(ledger.statistics.delivered == 100, "only what the consumer took")
        #expect(ledger.statistics.discarded == 900)
        #expect(ledger.statistics.undelivered == 1)
        ledger.expectLettersMatchCounters()
    }

    @Test("R1/R4 (issue 13.3): a stream whose consumer task is cancelled counts what it never yielded as discarded")
    func cancelledConsumer() async {
        let bus = EventBus(label: #function)
        let stream = bus.deadLetters()
        let taken = CoreCounter()
        let tookOne = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let consumer = Task {
            let events = bus.events(of: Parcel.self)
            for value in 0..<500 { bus.queue(Parcel(value: value)) }
            for await _ in events {
                if taken.increment() == 1 {
                    tookOne.signal()
                    await coreWait(resume)
                }
                if Task.isCancelled { break }
            }
        }
        await coreWait(tookOne)
        consumer.cancel()
        resume.signal()
        await consumer.value
        let ledger = await AccountingLedger.close(bus, letters: stream)
        #expect(taken.count == 1)
        #expect(ledger.statistics.delivered == 1, "only what the consumer took")
        #expect(ledger.statistics.discarded == 499)
        ledger.expectLettersMatchCounters()
    }

    @Test("L2/R1 (issue 13.7): listeners of freed owners leave the registry at the next registration of their type")
    func freedOwnersLeave() async {
        final class Owner: Sendable {}
        let bus = EventBus(label: #function)
        await coreOnPlainThread {
            for _ in 0..<2_000 {
                let owner = Owner()
                bus.listen(Parcel.self, owner: owner, executeOn: .synchronous) { _, _ in }
            }
        }
        bus.listen(Parcel.self, executeOn: .synchronous) { _, _ in }
        #expect(bus.subscriberCount(for: Parcel.self) == 1, "the freed owners' listeners are gone")
        bus.dispatchNow(Parcel(value: 0))
        #expect(bus.statistics.delivered == 1)
        #expect(bus.statistics.ownerReleased == 0)
        await bus.shutdown()
    }
}
