// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing

@testable import EventDrivenSwift

/// What a shutdown waits for before it drains (``_DispatchesInFlight``), with the steps of
/// concurrent dispatches interleaved by hand, as the dispatch path (EventBus.swift) takes them.
@Suite("R5: the dispatches a shutdown waits for")
struct DispatchesInFlightTests {
    /// A dispatch leaving: the count's decrement, then (if it reached zero) the look at whether
    /// anyone waits, as two steps, so that another dispatch can come between them.
    private struct Leaving {
        let dispatches: _DispatchesInFlight
        let reachedZero: Bool

        init(_ dispatches: _DispatchesInFlight) {
            self.dispatches = dispatches
            reachedZero = dispatches.count.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue == 0
        }

        func finish() {
            if reachedZero && dispatches.needsQuiescence.load(ordering: .sequentiallyConsistent) != 0 {
                dispatches.quiesced()
            }
        }
    }

    @Test("a dispatch that left before another entered does not end the wait for the other")
    func staleZeroDoesNotEndTheWait() {
        // CI's run of 2026-11-27: one round of `ShutdownRaceTests` in 20 discarded an event.
        let dispatches = _DispatchesInFlight()
        let idle = CoreCounter()
        dispatches.enter()  // the first dispatch
        let first = Leaving(dispatches)  // it brings the count to zero...
        dispatches.enter()  // ...a second one enters, and passes the accepting check...
        dispatches.whenIdle { idle.increment() }  // ...the shutdown waits for it...
        first.finish()  // ...and the first looks at the waiters only now
        #expect(idle.count == 0, "the second dispatch is still in progress")
        dispatches.leave()
        #expect(idle.count == 1, "no dispatch in progress")
    }

    @Test("the wait ends at once when no dispatch is in progress, and after the last one leaves")
    func waitEnds() {
        let dispatches = _DispatchesInFlight()
        let calls = CoreCounter()
        dispatches.whenIdle { calls.increment() }
        #expect(calls.count == 1)
        dispatches.enter()
        dispatches.enter()
        dispatches.whenIdle { calls.increment() }
        dispatches.leave()
        #expect(calls.count == 1, "one dispatch is still in progress")
        dispatches.leave()
        #expect(calls.count == 2, "each waiter runs once")
        dispatches.enter()
        dispatches.leave()
        #expect(calls.count == 2, "each waiter runs once")
    }
}
