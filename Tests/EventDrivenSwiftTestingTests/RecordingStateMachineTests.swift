// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing

@testable import EventDrivenSwiftTesting

@Suite("K1: the recorder's state machine, without threads")
struct RecordingStateMachineTests {
    typealias Machine = _RecordingStateMachine<String, Int>

    @Test("a waiter is returned by the record that reaches its count, not before")
    func waiterResumesAtItsCount() {
        var machine = Machine()
        guard case .wait = machine.wait(id: 0, untilCount: 2, 100) else {
            Issue.record("a wait for 2 of 0 records must wait")
            return
        }
        #expect(machine.record("a").isEmpty)
        #expect(machine.record("b") == [100])
        #expect(machine.record("c").isEmpty)
        #expect(machine.records == ["a", "b", "c"])
    }

    @Test("a wait for records that exist resumes at once")
    func satisfiedWaitResumesAtOnce() {
        var machine = Machine()
        _ = machine.record("a")
        guard case .resume(let waiter) = machine.wait(id: 0, untilCount: 1, 7) else {
            Issue.record("a wait for 1 of 1 records must not wait")
            return
        }
        #expect(waiter == 7)
    }

    @Test("a cancellation before the wait registers cancels it when it does; after, it removes it")
    func cancellation() {
        var machine = Machine()
        #expect(machine.cancel(id: 3) == nil)
        guard case .cancel(let early) = machine.wait(id: 3, untilCount: 1, 30) else {
            Issue.record("a wait cancelled early must end cancelled")
            return
        }
        #expect(early == 30)
        guard case .wait = machine.wait(id: 4, untilCount: 1, 40) else {
            Issue.record("a wait for 1 of 0 records must wait")
            return
        }
        #expect(machine.cancel(id: 4) == 40)
        #expect(machine.record("a").isEmpty)
    }

    @Test("next's positions: taken in turn, given back when a wait fails, reset by removeAll")
    func positions() {
        var machine = Machine()
        #expect(machine.reserveNext() == 0)
        #expect(machine.reserveNext() == 1)
        machine.unreserve(1)
        #expect(machine.reserveNext() == 1)
        _ = machine.record("a")
        machine.removeAllRecords()
        #expect(machine.records.isEmpty)
        #expect(machine.cursor == 0)
        #expect(machine.reserveNext() == 0)
    }

    @Test("two failed waits give their positions back in either order; the lowest is taken first")
    func positionsGivenBackInAnyOrder() {
        for lowestFirst in [true, false] {
            var machine = Machine()
            #expect(machine.reserveNext() == 0)
            #expect(machine.reserveNext() == 1)
            #expect(machine.reserveNext() == 2)
            if lowestFirst {
                machine.unreserve(0)
                machine.unreserve(1)
            } else {
                machine.unreserve(1)
                machine.unreserve(0)
            }
            #expect(machine.reserveNext() == 0)
            #expect(machine.reserveNext() == 1)
            #expect(machine.reserveNext() == 3)
        }
    }
}

@Suite("K1: the manual clock's state machine, without threads")
struct ManualClockStateMachineTests {
    @Test("items come out in due order, ties in scheduling order, and move the time to their due time")
    func dueOrder() {
        var machine = _ManualClockStateMachine<String>(now: 100)
        machine.schedule("late", due: 300)
        machine.schedule("first tie", due: 200)
        machine.schedule("second tie", due: 200)
        machine.schedule("overdue", due: 50)
        #expect(machine.pendingCount == 4)
        #expect(machine.nextDue == 50)
        #expect(machine.takeDue(through: 250) == "overdue")
        #expect(machine.now == 100)
        #expect(machine.takeDue(through: 250) == "first tie")
        #expect(machine.now == 200)
        #expect(machine.takeDue(through: 250) == "second tie")
        #expect(machine.takeDue(through: 250) == nil)
        machine.advance(to: 250)
        machine.advance(to: 10)
        #expect(machine.now == 250)
        machine.remove { $0 == "late" }
        #expect(machine.pendingCount == 0)
    }
}
