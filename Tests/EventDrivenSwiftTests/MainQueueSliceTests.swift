// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

/// Issue 25: main-actor deliveries drain the main queue in slices of a few milliseconds, so a
/// backlog never freezes the main thread (its timers, input and rendering).
@Suite("U3: main-actor delivery leaves the main queue responsive")
struct MainQueueSliceTests {
    struct Flood: Eventable { let value: Int }

    /// Checks that the values arrive as 0, 1, 2, …
    final class OrderCheck: Sendable {
        private let state = LockedValue<(next: Int, outOfOrder: Int)>((0, 0))

        func saw(_ value: Int) {
            state.withLock { state in
                if value != state.next { state.outOfOrder += 1 }
                state.next = value + 1
            }
        }

        var received: Int { state.withLock { $0.next } }
        var outOfOrder: Int { state.withLock { $0.outOfOrder } }
    }

    /// When a main-queue timer fired last, and the longest time it went without firing.
    final class TimerGaps: Sendable {
        private let state = LockedValue<(last: UInt64, worst: UInt64, fires: Int)>((0, 0, 0))

        func fired() {
            let now = DispatchTime.now().uptimeNanoseconds
            state.withLock { state in
                if state.last != 0 { state.worst = max(state.worst, now - state.last) }
                state.last = now
                state.fires += 1
            }
        }

        /// Starts measuring from now.
        func restart() {
            let now = DispatchTime.now().uptimeNanoseconds
            state.withLock { $0 = (now, 0, 0) }
        }

        /// The worst gap, counting the one from the last fire to now.
        func worstUntilNow() -> (worst: UInt64, fires: Int) {
            let now = DispatchTime.now().uptimeNanoseconds
            return state.withLock { (max($0.worst, now - $0.last), $0.fires) }
        }

        var fires: Int { state.withLock { $0.fires } }
    }

    /// Polls `condition` every 5 ms until it holds or `seconds` have passed.
    static func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    /// One round: `count` events queued from a plain thread as fast as it can to a main-actor
    /// listener that works 10 µs per event, so that a backlog builds up; returns the worst gap
    /// of a main-queue timer set to fire every 5 ms, from the first event until the last is
    /// delivered, and whether every event arrived, in order.
    static func floodRound(count: Int) async -> (worst: UInt64, fires: Int, inOrder: Bool) {
        let bus = EventBus(label: "issue25-slices")
        let order = OrderCheck()
        let handle = bus.listen(Flood.self, executeOn: .mainActor) { event, _ in
            order.saw(event.value)
            let until = DispatchTime.now().uptimeNanoseconds + 10_000
            while DispatchTime.now().uptimeNanoseconds < until {}  // the handler's work
        }
        let gaps = TimerGaps()
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: .milliseconds(5))
        timer.setEventHandler { gaps.fired() }
        timer.resume()
        _ = await eventually(within: 10) { gaps.fires > 0 }
        gaps.restart()
        Thread.detachNewThread {
            for value in 0..<count { Flood(value: value).queue(on: bus) }
        }
        let delivered = await eventually(within: 300) { order.received == count }
        let (worst, fires) = gaps.worstUntilNow()
        timer.cancel()
        handle.cancel()
        return (worst, fires, delivered && order.received == count && order.outOfOrder == 0)
    }

    // Other suites hold the main queue on purpose for a second or more (the watch's tests), and
    // run in parallel with this one: the best of up to six rounds is taken. Before the slices each
    // round's worst gap was the whole backlog, about a second (see the commit message).
    @Test("a background flood of a main-actor listener: a 5 ms main-queue timer keeps firing, every event in order")
    func timerKeepsFiringDuringFlood() async {
        var rounds: [(worst: UInt64, fires: Int, inOrder: Bool)] = []
        for _ in 0..<6 {
            let round = await Self.floodRound(count: 100_000)
            rounds.append(round)
            #expect(round.inOrder, "every event delivered, in order")
            if round.worst < Self.bound { break }
        }
        let gapsInMilliseconds = rounds.map { $0.worst / 1_000_000 }
        // 5 ms asked; the bound leaves room for a loaded 2-core machine (other processes, a debug
        // build), and is far below a drain that holds the main queue for the whole backlog.
        #expect(rounds.contains { $0.worst < Self.bound }, "worst timer gaps per round: \(gapsInMilliseconds) ms")
        print(
            "issue25-slices: worst main-queue timer gap per round \(gapsInMilliseconds) ms, fires \(rounds.map(\.fires))"
        )
    }

    static var bound: UInt64 { 250_000_000 }
}
