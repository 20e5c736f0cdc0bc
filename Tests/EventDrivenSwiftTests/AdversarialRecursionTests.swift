// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: recursion")
struct AdversarialRecursionTests {
    @Test(
        "D5/D7: ping-pong of two event types through .synchronous listeners and queue() ends at the depth limit, once, and the next chain on the same thread reaches it again"
    )
    func mutualSynchronousRecursion() async {
        let bus = EventBus(label: "adv-mutual")
        let letters = bus.deadLetters()
        let errors = coreCollectErrors(on: bus)
        let deepest = LockedValue(0)
        let runs = CoreCounter()
        bus.listen(AdvPing.self, executeOn: .synchronous) { ping, _ in
            runs.increment()
            deepest.withLock { $0 = max($0, ping.depth) }
            bus.queue(AdvPong(depth: ping.depth + 1))
        }
        bus.listen(AdvPong.self, executeOn: .synchronous) { pong, _ in
            runs.increment()
            deepest.withLock { $0 = max($0, pong.depth) }
            AdvPing(depth: pong.depth + 1).stack(on: bus)
        }
        let limit = EventBus.maximumSynchronousDepth
        // On a dispatch queue's thread (a 512 KB stack), as the README warns.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue(label: "adv-deep").async {
                bus.dispatchNow(AdvPing(depth: 1))
                done.resume()
            }
        }
        #expect(deepest.withLock { $0 } == limit)
        #expect(runs.count == limit)
        #expect(errors.values.map(\.code) == [.synchronousDepthExceeded])
        // Same thread (the caller's) twice in a row: the depth must have unwound.
        deepest.withLock { $0 = 0 }
        bus.dispatchNow(AdvPing(depth: 1))
        #expect(deepest.withLock { $0 } == limit)
        #expect(runs.count == 2 * limit)
        #expect(errors.count == 2)
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.failed == 2, "\(ledger.statistics)")
        #expect(ledger.statistics.delivered == 2 * limit, "\(ledger.statistics)")
        #expect(ledger.outcomes == 2 * limit + 2)
        ledger.expectLettersMatchCounters()
    }

    @Test(
        "D5: dispatchNow recursion with an interceptor wrapping every handler, on a 512 KB stack, ends at the limit without a crash"
    )
    func recursionUnderInterceptor() async {
        let bus = EventBus(label: "adv-deep-intercepted")
        let letters = bus.deadLetters()
        let interceptor = AdvCountingInterceptor()
        let interception = bus.addInterceptor(interceptor)
        let errors = coreCollectErrors(on: bus)
        let runs = CoreCounter()
        // Two synchronous listeners per level, so that each level nests under the first.
        bus.listen(AdvPing.self, executeOn: .synchronous) { ping, _ in
            runs.increment()
            bus.dispatchNow(AdvPing(depth: ping.depth + 1))
        }
        bus.listen(AdvPing.self, executeOn: .synchronous) { _, _ in runs.increment() }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                bus.dispatchNow(AdvPing(depth: 1))
                done.resume()
            }
        }
        let limit = EventBus.maximumSynchronousDepth
        #expect(runs.count == 2 * limit)
        #expect(errors.values.allSatisfy { $0.code == .synchronousDepthExceeded })
        #expect(errors.count >= 1)
        interception.cancel()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        #expect(ledger.statistics.delivered == 2 * limit)
        #expect(ledger.outcomes == 2 * (limit + 1), "\(ledger.statistics)")
        ledger.expectLettersMatchCounters()
    }
}
