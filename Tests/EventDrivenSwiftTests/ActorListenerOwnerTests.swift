// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing
import ThreadSafeSwift

/// An actor listener (`listen(_:on:)`) holds its actor weakly. When the actor is freed after the
/// delivery's owner check but before the handler takes it, the handler does not run, and the
/// delivery must be counted `ownerReleased`, not `delivered` (README *Guarantees*, SPEC R1).
@Suite("R1/L2: an actor listener whose actor is freed as its delivery starts")
struct ActorListenerOwnerTests {
    private struct Tick: Eventable { let n: Int }

    private actor Sink {
        var seen = 0
        func bump() { seen += 1 }
    }

    /// Drops the last reference to the sink around the handler, after the owner check.
    private final class ReleasingInterceptor: EventInterceptor {
        let sink: LockedValue<Sink?>
        let outcomes = LockedValue<[EventDeliveryOutcome]>([])
        init(_ sink: LockedValue<Sink?>) { self.sink = sink }
        func wrapAsyncHandler(for delivery: EventDeliveryInfo, _ handler: () async throws -> Void) async rethrows {
            sink.withLock { $0 = nil }
            try await handler()
        }
        func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) {
            outcomes.withLock { $0.append(result.outcome) }
        }
    }

    @Test("the actor freed inside an interceptor's wrapper: not delivered, counted ownerReleased, one dead letter")
    func actorFreedBetweenCheckAndHandler() async {
        let bus = EventBus(label: "actorFreedBetweenCheckAndHandler")
        let letters = bus.deadLetters()
        let sink = LockedValue<Sink?>(Sink())
        let calls = CoreCounter()
        bus.listen(Tick.self, on: sink.withLock { $0! }) { _, _ in calls.increment() }
        let interceptor = ReleasingInterceptor(sink)
        let interception = bus.addInterceptor(interceptor)
        bus.queue(Tick(n: 0))
        await bus.drain()
        interception.cancel()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(calls.count == 0)
        #expect(ledger.statistics.delivered == 0, "\(ledger.statistics)")
        #expect(ledger.statistics.ownerReleased == 1, "\(ledger.statistics)")
        #expect(interceptor.outcomes.withLock { $0 } == [.ownerReleased])
        ledger.expectLettersMatchCounters()
    }

    @Test("actors freed on another thread while their deliveries start: delivered equals the handlers that ran")
    func actorsFreedWhileDeliveriesStart() async {
        let bus = EventBus(label: "actorsFreedWhileDeliveriesStart")
        let letters = bus.deadLetters()
        let calls = CoreCounter()
        for round in 0..<10 {
            let sinks = LockedValue<[Sink]>((0..<200).map { _ in Sink() })
            for sink in sinks.withLock({ $0 }) {
                bus.listen(Tick.self, on: sink) { _, _ in calls.increment() }
            }
            bus.queue(Tick(n: round))
            await coreOnPlainThread { sinks.withLock { $0.removeAll() } }
            await bus.drain()
        }
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == calls.count, "handlers ran \(calls.count)×; \(ledger.statistics)")
        #expect(ledger.outcomes == 2_000)
        ledger.expectLettersMatchCounters()
    }
}
