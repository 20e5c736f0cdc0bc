// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: pools")
struct AdversarialPoolsTests {
    @Test("D5/P1: a pool feeds itself a 200-hop chain; waitUntilQuiet sees every hop, once, in order")
    func poolSelfFeedingChain() async throws {
        let bus = EventBus(label: "adv-poolChain")
        let letters = bus.deadLetters()
        let pool = EventPool<AdvChainLink>(capacity: 3, bus: bus)
        bus.queue(AdvPing(depth: 1))
        try await bus.waitUntilQuiet(timeout: .seconds(30))
        let hops = AdvChainLink.hops.withLock { $0[ObjectIdentifier(bus).hashValue] ?? [] }
        #expect(hops == Array(1...200))
        _ = pool.stop(draining: true)
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == 200, "\(ledger.statistics)")
        #expect(ledger.outcomes == 200, "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }
}
