// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: durations and sizes at the edge")
struct AdversarialExtremeValuesTests {
    @Test(
        "S1: a delay of 18,446,744,073.8 s (past UInt64 nanoseconds) does not fire early; a 300 ms sentinel fires first"
    )
    func scheduleAfterJustPastUInt64Nanoseconds() async {
        let bus = EventBus(label: "p2-wrapDelay")
        let stream = bus.events(of: P2Tick.self)
        let huge = P2Tick(n: 1).schedule(after: .seconds(18_446_744_073) + .milliseconds(800), on: bus)
        let sentinel = P2Tick(n: 2).schedule(after: .milliseconds(300), on: bus)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.n == 2, "the ~584-year event fired first, due \(huge.dueTime.uptimeNanoseconds)")
        #expect(huge.isActive && !huge.hasFired, "\(huge)")
        #expect(sentinel.hasFired)
        await bus.shutdown()
    }

    @Test("A3: waitUntilQuiet with a timeout of 18,446,744,073.8 s waits for the bus instead of timing out at once")
    func waitUntilQuietJustPastUInt64Nanoseconds() async throws {
        let bus = EventBus(label: "p2-wrapQuiet")
        let (gate, handle) = await blockListenerThread(bus)
        let opened = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(400)) {
            gate.open()
            opened.signal()
        }
        let start = DispatchTime.now()
        var thrown: (any Error)?
        do { try await bus.waitUntilQuiet(timeout: .seconds(18_446_744_073) + .milliseconds(800)) } catch {
            thrown = error
        }
        let waited = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6
        #expect(thrown == nil, "timed out after \(waited) ms: \(String(describing: thrown))")
        await coreWait(opened)
        handle.cancel()
        await bus.shutdown()
    }

    @Test("R5: shutdown(gracefullyWithin:) 18,446,744,073.8 s finishes a 400 ms backlog instead of cutting it at once")
    func gracefulStopJustPastUInt64Nanoseconds() async {
        let bus = EventBus(label: "p2-wrapGraceful")
        let seen = CoreCounter()
        let (gate, handle) = await blockListenerThread(bus)
        let h2 = bus.listen(P2Tick.self, executeOn: .listenerThread) { _, _ in seen.increment() }
        for n in 0..<3 { P2Tick(n: n).queue(on: bus) }
        let opened = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(400)) {
            gate.open()
            opened.signal()
        }
        let notQuiet = await bus.shutdown(gracefullyWithin: .seconds(18_446_744_073) + .milliseconds(800))
        await coreWait(opened)
        #expect(notQuiet == nil, "\(String(describing: notQuiet))")
        #expect(seen.count == 3 && bus.statistics.discarded == 0, "\(bus.statistics)")
        handle.cancel()
        h2.cancel()
    }

    @Test("L6: .youngerThan a positive age below one nanosecond expires every event instead of meaning 'no limit'")
    func youngerThanSubNanosecond() async throws {
        let bus = EventBus(label: "p2-subNano")
        let seen = CoreCounter()
        let handle = bus.listen(
            P2Tick.self, executeOn: .listenerThread, interestedIn: .youngerThan(.nanoseconds(1) / 2)
        ) {
            _, _ in seen.increment()
        }
        #expect(handle.registrationError == nil)
        for n in 0..<5 { P2Tick(n: n).queue(on: bus) }
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        handle.cancel()
        await bus.shutdown()
        #expect(seen.count == 0, "a 0.5 ns limit let \(seen.count) events through")
        #expect(bus.statistics.expired == 5, "\(bus.statistics)")
    }

    @Test(
        "L6: .youngerThan a negative age above minus one nanosecond is misuse (negativeMaximumAge), as any negative age is"
    )
    func youngerThanNegativeSubNanosecond() async {
        let bus = EventBus(label: "p2-negSubNano")
        let errors = coreCollectErrors(on: bus)
        let handle = bus.listen(
            P2Tick.self, executeOn: .listenerThread, interestedIn: .youngerThan(.zero - .nanoseconds(1) / 2)
        ) {
            _, _ in
        }
        #expect(
            handle.registrationError?.code == .negativeMaximumAge, "\(String(describing: handle.registrationError))")
        #expect(errors.values.map(\.code) == [.negativeMaximumAge])
        handle.cancel()
        await bus.shutdown()
    }

    @Test("P4: a dynamic scaler's evaluationInterval of 9,223,372,036.9 s does not trap when the pool arms its check")
    func poolEvaluationIntervalNearInt64Nanoseconds() async {
        await #expect(processExitsWith: .success) {
            let bus = EventBus(label: "p2-poolInterval")
            let scaler = EventPoolDynamicScaler(
                minimum: 1, maximum: 2, evaluationInterval: .seconds(9_223_372_036) + .milliseconds(900))
            let pool = EventPool<AdvPoolWorker>(capacity: 1, scaler: scaler, bus: bus)
            _ = pool.stop()
        }
    }

    @Test(
        "P4: a dynamic scaler with scaleUpThreshold Int.max ('never grow') does not trap when it evaluates two threads")
    func poolScaleUpThresholdIntMax() async {
        await #expect(processExitsWith: .success) {
            let bus = EventBus(label: "p2-poolThreshold")
            let scaler = EventPoolDynamicScaler(
                minimum: 2, maximum: 4, scaleUpThreshold: Int.max, evaluationInterval: nil)
            let pool = EventPool<AdvPoolWorker>(capacity: 2, scaler: scaler, bus: bus)
            pool.evaluateScaling()
            _ = pool.stop()
        }
    }
}
