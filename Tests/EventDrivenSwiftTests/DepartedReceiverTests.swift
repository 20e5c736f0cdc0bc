// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization
import Testing

private struct Ping: Eventable { let n: Int }

private let handled = Atomic<Int>(0)

/// A thread whose callback is a closure that does not hold it, and takes a little while.
private final class SlowThread: EventThread, @unchecked Sendable {  // no state of its own
    override func registerEventListeners() {
        addEventCallback(Ping.self) { _, _ in
            handled.add(1, ordering: .relaxed)
            usleep(100)
        }
    }
}

/// A pool thread that stops its pool from its callback for the first event.
private final class SelfStoppingWorker: EventThread, @unchecked Sendable {  // no state of its own
    static let pool = LockedValue<EventPool<SelfStoppingWorker>?>(nil)
    override func registerEventListeners() {
        addEventCallback(Ping.self) { ping, _ in
            handled.add(1, ordering: .relaxed)
            if ping.n == 0, let pool = SelfStoppingWorker.pool.withLock({ $0 }) { _ = pool.stop(draining: true) }
        }
    }
}

/// Receivers that leave the bus while they still hold deliveries (found by outside adversarial
/// tests): `drain()` and `shutdown()` wait until they have counted them, as the Guarantees
/// article's "When counts are final" says.
@Suite("R1/R4/R5: receivers that leave while they hold deliveries", .serialized)
struct DepartedReceiverTests {
    @Test("an EventThread freed while it holds deliveries: drain() and shutdown() return with them counted")
    func freedThread() async {
        var early: [String] = []
        for round in 0..<20 {
            let bus = EventBus(label: "freed-\(round)")
            do {
                let thread = SlowThread(bus: bus)
                for n in 0..<200 { Ping(n: n).queue(on: bus) }
                _ = thread
            }  // the last reference goes while events are pending
            if round.isMultiple(of: 2) { await bus.drain() }
            await bus.shutdown()
            let ledger = bus.statistics
            let counted = ledger.delivered + ledger.discarded
            if counted != 200 { early.append("round \(round): \(counted) of 200 counted (\(ledger))") }
        }
        #expect(early.isEmpty, "\(early.count) of 20 rounds: \(early.prefix(3))")
    }

    @Test("a pool stopped from its own callback: shutdown() returns once it has stopped, every delivery counted")
    func poolStoppedFromItsCallback() async {
        var early: [String] = []
        for round in 0..<20 {
            handled.store(0, ordering: .relaxed)
            let bus = EventBus(label: "self-stopped-\(round)")
            SelfStoppingWorker.pool.withLock { $0 = EventPool<SelfStoppingWorker>(capacity: 3, bus: bus) }
            for n in 0..<30 { Ping(n: n).queue(on: bus) }
            await bus.shutdown()
            let statistics = bus.statistics
            let handledAtReturn = handled.load(ordering: .relaxed)
            let counted = statistics.delivered + statistics.discarded + statistics.undelivered
            if counted != 30 || handledAtReturn != statistics.delivered {
                early.append("round \(round): \(counted) of 30 counted, \(handledAtReturn) handled (\(statistics))")
            }
            SelfStoppingWorker.pool.withLock { $0 = nil }
        }
        #expect(early.isEmpty, "\(early.count) of 20 rounds: \(early.prefix(3))")
    }

    @Test(
        "an EventThread cancelled, or a pool stopped, while the bus shuts down: counts final and every letter posted when shutdown returns",
        arguments: ["thread", "pool"], [false, true])
    func stopRacingShutdown(receiver: String, immediately: Bool) async {
        var early: [String] = []
        for round in 0..<20 {
            let bus = EventBus(label: "stop-race-\(round)")
            let letters = bus.deadLetters()
            let thread = receiver == "thread" ? SlowThread(bus: bus) : nil
            let pool = receiver == "pool" ? EventPool<SlowThread>(capacity: 2, bus: bus) : nil
            for n in 0..<300 { Ping(n: n).queue(on: bus) }
            let stopped = DispatchSemaphore(value: 0)
            Thread {
                _ = thread?.cancel()
                _ = pool?.stop()
                stopped.signal()
            }.start()
            await bus.shutdown(immediately: immediately)
            let atReturn = bus.statistics
            var posted = 0
            for await _ in letters { posted += 1 }
            #expect(await poolWait(stopped))
            let later = bus.statistics
            if atReturn != later || posted != later.discarded {
                early.append("round \(round): \(atReturn) at the return, \(later) later, \(posted) letters")
            }
        }
        #expect(early.isEmpty, "\(early.count) of 20 rounds: \(early.prefix(3))")
    }
}
