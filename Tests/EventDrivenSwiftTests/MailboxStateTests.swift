// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing

@testable import EventDrivenSwift

/// The mailbox's control state alone, without threads (issue 24): each transition and the
/// action it returns.
@Suite("Issue 24: the mailbox's control state, transition by transition")
struct MailboxStateTests {
    @Test("a new mailbox is open, idle and empty, and its word round-trips")
    func newMailbox() {
        let state = _MailboxState()
        #expect(state.phase == .open && state.isParked && state.top == 0 && state.count == 0)
        #expect(_MailboxState(word: state.word) == state)
    }

    @Test("T2: a push into an idle mailbox wakes the drainer; into a busy one it does not")
    func pushWakesOnlyAnIdleDrainer() {
        var state = _MailboxState()
        #expect(state.push(7, deliveries: 1, capacity: .max) == .pushed(below: 0, wake: true))
        #expect(state.push(9, deliveries: 1, capacity: .max) == .pushed(below: 7, wake: false))
        #expect(state.top == 9 && state.count == 2 && !state.isParked)
        #expect(_MailboxState(word: state.word) == state)
    }

    @Test("T2: a take hands out the whole stack; an empty take looks again until idling is allowed, then parks")
    func takeThenPark() {
        var state = _MailboxState()
        _ = state.push(3, deliveries: 1, capacity: .max)
        _ = state.push(4, deliveries: 1, capacity: .max)
        #expect(state.take(mayIdle: true) == .run(top: 4, count: 2))
        #expect(state.take(mayIdle: false) == .lookAgain)
        #expect(!state.isParked)
        #expect(state.take(mayIdle: true) == .park)
        #expect(state.isParked)
        #expect(state.push(5, deliveries: 1, capacity: .max) == .pushed(below: 0, wake: true))
    }

    @Test("R3: a bounded mailbox is full at its capacity; the batch taken does not count")
    func capacity() {
        var state = _MailboxState()
        #expect(state.push(1, deliveries: 1, capacity: 2) != .full)
        #expect(state.push(2, deliveries: 1, capacity: 2) != .full)
        #expect(state.push(3, deliveries: 1, capacity: 2) == .full)
        #expect(state.top == 2 && state.count == 2, "a full push changes nothing")
        _ = state.take(mayIdle: false)
        #expect(state.push(3, deliveries: 1, capacity: 2) == .pushed(below: 0, wake: false))
    }

    @Test("A3: a barrier runs at once on an idle empty mailbox and on a closed one; otherwise it waits its turn")
    func barriers() {
        var idle = _MailboxState()
        let first = idle.pushBarrier(1)
        #expect(first == .runNow)
        var busy = _MailboxState()
        _ = busy.push(1, deliveries: 1, capacity: .max)
        #expect(busy.pushBarrier(2) == .pushed(below: 1))
        #expect(busy.count == 1, "a barrier is no delivery")
        _ = busy.take(mayIdle: true)
        #expect(busy.pushBarrier(3) == .pushed(below: 0), "a batch is running: the barrier waits for it")
        var closed = _MailboxState()
        _ = closed.close()
        #expect(closed.pushBarrier(4) == .runNow)
    }

    @Test("T4: close hands out what is pending and wakes an idle drainer; nothing is accepted after it")
    func close() {
        var state = _MailboxState()
        _ = state.push(1, deliveries: 1, capacity: .max)
        _ = state.push(2, deliveries: 1, capacity: .max)
        #expect(state.close() == .init(top: 2, count: 2, wakeDrainer: false))
        #expect(state.push(3, deliveries: 1, capacity: .max) == .refused)
        #expect(state.take(mayIdle: true) == .finish)
        var idle = _MailboxState()
        let closing = idle.close()
        #expect(closing.wakeDrainer, "an idle drainer is woken to find the mailbox finished")
    }

    @Test("T4: closeAfterDraining refuses new deliveries, lets the pending ones run, then finishes")
    func closeAfterDraining() {
        var state = _MailboxState()
        _ = state.push(1, deliveries: 1, capacity: .max)
        let wakes = state.closeAfterDraining()
        #expect(!wakes, "a busy drainer needs no wake")
        #expect(state.push(2, deliveries: 1, capacity: .max) == .refused)
        #expect(state.take(mayIdle: true) == .run(top: 1, count: 1))
        #expect(state.take(mayIdle: true) == .finish)
        #expect(state.phase == .closed)
        var idle = _MailboxState()
        let wakesIdle = idle.closeAfterDraining()
        #expect(wakesIdle, "an idle drainer is woken to finish")
    }
}
