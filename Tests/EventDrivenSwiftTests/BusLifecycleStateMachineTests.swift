// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization
import Testing

@testable import EventDrivenSwift

/// The bus's lifecycle machine alone, without threads (issue 14: shutdown is a state machine).
@Suite("R5 (issue 14): the bus lifecycle state machine")
struct BusLifecycleStateMachineTests {
    @Test("accepting until the first shutdown, which runs; closed once it ends")
    func firstShutdownRuns() {
        var machine = _BusLifecycleStateMachine()
        #expect(machine.isAccepting && !machine.isClosed && machine.isImmediate == nil)
        #expect(machine.shutDown(immediately: true) {} == .run(immediately: true))
        #expect(!machine.isAccepting && !machine.isClosed && machine.isImmediate == true)
        #expect(machine.shutdownEnded().isEmpty)
        #expect(machine.isClosed && !machine.isAccepting && machine.isImmediate == nil)
    }

    @Test("later calls wait for the running shutdown, keep its mode, and are handed back when it ends")
    func laterCallsWait() {
        var machine = _BusLifecycleStateMachine()
        #expect(machine.shutDown(immediately: false) {} == .run(immediately: false))
        let resumed = Counter()
        #expect(machine.shutDown(immediately: true) { resumed.add() } == .wait)
        #expect(machine.shutDown(immediately: false) { resumed.add() } == .wait)
        #expect(machine.isImmediate == false, "a graceful shutdown in progress stays graceful")
        let waiters = machine.shutdownEnded()
        #expect(waiters.count == 2)
        for waiter in waiters { waiter() }
        #expect(resumed.value == 2)
    }

    @Test("after the end a call returns at once and its waiter is not kept")
    func closedReturnsNow() {
        var machine = _BusLifecycleStateMachine()
        _ = machine.shutDown(immediately: false) {}
        _ = machine.shutdownEnded()
        let resumed = Counter()
        #expect(machine.shutDown(immediately: true) { resumed.add() } == .returnNow)
        #expect(resumed.value == 0)
        #expect(machine.isClosed)
    }
}

/// Counts calls (the machine's waiters are `@Sendable`).
private final class Counter: Sendable {
    private let count = LockedValue(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}

/// The graceful stop with a deadline (issue 29): finishing, then the shutdown proper.
@Suite("R5 (issue 29): finishing what the bus accepted, in the lifecycle state machine")
struct BusLifecycleFinishingTests {
    @Test("a graceful stop finishes first: not accepting, finishing, then the shutdown it ended in")
    func finishingThenShutdown() {
        var machine = _BusLifecycleStateMachine()
        #expect(machine.beginFinishing(cut: {}, whenClosed: {}) == .run(immediately: false))
        #expect(!machine.isAccepting && machine.isFinishing && machine.isImmediate == nil)
        machine.finishingEnded(immediately: true)
        #expect(!machine.isFinishing && machine.isImmediate == true, "cut at its deadline: the rest stops at once")
        #expect(machine.shutdownEnded().isEmpty)
        #expect(machine.isClosed)
    }

    @Test("an immediate shutdown during the finish cuts it and waits; a graceful one only waits")
    func immediateCallCuts() {
        var machine = _BusLifecycleStateMachine()
        let cuts = Counter()
        _ = machine.beginFinishing(cut: { cuts.add() }, whenClosed: {})
        #expect(machine.shutDown(immediately: false) {} == .wait)
        #expect(machine.shutDown(immediately: true) {} == .cutAndWait)
        machine.cut?()
        #expect(cuts.value == 1)
        #expect(machine.beginFinishing(cut: {}, whenClosed: {}) == .wait, "a second graceful stop waits for the first")
        machine.finishingEnded(immediately: true)
        #expect(machine.cut == nil)
        #expect(machine.shutdownEnded().count == 3)
    }
}
