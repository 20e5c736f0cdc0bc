// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization
import Testing

@testable import EventDrivenSwift

/// Counts the payloads freed, and runs `onDeinit` when one is.
private final class PayloadCounter: Sendable {
    let freed = Atomic<Int>(0)
    let onDeinit: (@Sendable () -> Void)?

    init(onDeinit: (@Sendable () -> Void)? = nil) {
        self.onDeinit = onDeinit
    }
}

/// A payload whose `deinit` is counted.
private final class CountedPayload: Sendable {
    let counter: PayloadCounter

    init(_ counter: PayloadCounter) {
        self.counter = counter
    }

    deinit {
        counter.freed.add(1, ordering: .sequentiallyConsistent)
        counter.onDeinit?()
    }
}

private struct Reminder: Eventable {
    let payload: CountedPayload
}

@Suite("Scheduled dispatch: cancelling frees the event (S2, issue 12 §3.10)")
struct SchedulerCancelTests {
    @Test("S2 (issue 12 §3.10): 100,000 events cancelled an hour ahead keep none of their payloads alive")
    func cancelFreesPayloads() {
        let bus = EventBus(label: "S2-cancel-frees")
        let counter = PayloadCounter()
        let count = 100_000
        let due = DispatchTime.now() + .seconds(3_600)
        var handles: [ScheduledEventHandle] = []
        handles.reserveCapacity(count)
        for _ in 0..<count {
            handles.append(bus.schedule(Reminder(payload: CountedPayload(counter)), at: due))
        }
        #expect(counter.freed.load(ordering: .sequentiallyConsistent) == 0, "scheduled events hold their payloads")
        for handle in handles {
            handle.cancel()
            #expect(handle.isCancelled)
        }
        #expect(counter.freed.load(ordering: .sequentiallyConsistent) == count, "cancel() freed every payload")
        #expect(handles.allSatisfy { $0.isCancelled && !$0.hasFired })
    }

    @Test("S2 (issue 12 §3.10): a bus's shutdown frees the payloads of the dispatches it cancels")
    func shutdownFreesPayloads() async {
        let bus = EventBus(label: "S2-shutdown-frees")
        let counter = PayloadCounter()
        for _ in 0..<1_000 {
            bus.schedule(Reminder(payload: CountedPayload(counter)), at: .now() + .seconds(3_600))
        }
        await bus.shutdown()
        #expect(counter.freed.load(ordering: .sequentiallyConsistent) == 1_000)
    }

    @Test("S2 (issue 12 §3.10): a payload freed by cancel() may schedule again from its deinit (not under the lock)")
    func deinitRunsOutsideTheLock() async {
        let bus = EventBus(label: "S2-deinit-schedules")
        let rescheduled = DispatchSemaphore(value: 0)
        let counter = PayloadCounter {
            // Takes the scheduler's lock: would never return if the deinit ran under it.
            bus.schedule(Reminder(payload: CountedPayload(PayloadCounter())), at: .now() + .seconds(3_600)).cancel()
            rescheduled.signal()
        }
        let handle = bus.schedule(Reminder(payload: CountedPayload(counter)), at: .now() + .seconds(3_600))
        let cancelled = DispatchSemaphore(value: 0)
        DispatchQueue(label: "test-stop").async {  // not the global queue: Swift's tasks run there
            handle.cancel()
            cancelled.signal()
        }
        #expect(await poolWait(cancelled), "cancel() returned")
        #expect(await poolWait(rescheduled))
        #expect(counter.freed.load(ordering: .sequentiallyConsistent) == 1)
    }

    // MARK: The state machine, without threads

    @Test("S1/S2: the scheduler state returns due jobs in order, skips cancelled ones, and wakes only for earlier ones")
    func stateMachineOrder() {
        var state = _SchedulerState<String>()
        #expect(state.schedule("b", id: 0, due: 20) == .startThread)
        #expect(state.schedule("c", id: 1, due: 30) == .none)
        #expect(state.schedule("a", id: 2, due: 10) == .wakeThread)
        #expect(state.schedule("a2", id: 3, due: 10) == .none, "same due time: the earlier-scheduled one is first")
        #expect(state.cancel(2) == "a")
        #expect(state.cancel(2) == nil, "cancelled once")
        #expect(state.pendingCount == 3)
        let first = state.takeDue(now: 25)
        #expect(first.due == ["a2", "b"])
        #expect(first.next == 30)
        #expect(state.cancel(1) == "c")
        let rest = state.takeDue(now: 25)
        #expect(rest.due.isEmpty && rest.next == nil, "nothing left to wake up for")
        #expect(state.storedKeyCount == 0)
    }

    @Test("S2 (issue 12 §3.10): cancelled jobs' heap keys are compacted, so memory does not grow with cancels")
    func stateMachineCompacts() {
        var state = _SchedulerState<Int>(compactionThreshold: 8)
        for id in 0..<1_000 { _ = state.schedule(id, id: UInt64(id), due: 1_000 + UInt64(id)) }
        for id in 0..<990 { #expect(state.cancel(UInt64(id)) == id) }
        #expect(state.pendingCount == 10)
        #expect(state.storedKeyCount <= 2 * 10 + 8, "stale keys are dropped once they outnumber live ones")
        let due = state.takeDue(now: .max)
        #expect(due.due == Array(990..<1_000))
        #expect(state.storedKeyCount == 0)
    }
}
