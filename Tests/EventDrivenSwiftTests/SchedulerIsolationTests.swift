// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

@testable import EventDrivenSwift

@Suite("S1/D6: scheduled dispatch, one bus's back-pressure holds up no other bus")
struct SchedulerIsolationTests {
    struct Tick: Eventable { let value: Int }

    /// A receiver whose mailbox holds two events and makes its producer wait when full; tick 0
    /// waits at the gate, so later ticks fill the mailbox.
    final class Blocked: EventThread, @unchecked Sendable {  // its state is the thread-safe `seen`, `gate`, `handled`
        override class var mailboxPolicy: EventMailboxPolicy {
            .bounded(capacity: 2, whenFull: .blockProducer(timeout: nil))
        }

        let seen = CoreRecorder<Int>()
        let gate = CoreGate()
        let handled = DispatchSemaphore(value: 0)

        override func registerEventListeners() {
            addEventCallback(Tick.self) { [unowned self] (tick: Tick, _: EventMetadata) in
                if tick.value == 0 { gate.block() }
                seen.append(tick.value)
                handled.signal()
            }
        }
    }

    @Test("S1/D6: bus B's scheduled event fires while bus A's scheduled dispatch waits for room in a full mailbox")
    func otherBusFiresWhileOneWaits() async {
        let busA = EventBus(label: "\(#function)-A")
        let busB = EventBus(label: "\(#function)-B")
        let receiver = Blocked(bus: busA)
        busA.queue(Tick(value: 0))
        await receiver.gate.waitUntilEntered()
        busA.queue(Tick(value: 1))
        busA.queue(Tick(value: 2))
        // Due at once: its dispatch waits for room in A's full mailbox.
        Tick(value: 3).schedule(after: .zero, on: busA)
        #expect(
            await coreEventually { receiver.mailbox.blockedProducersForTesting == 1 },
            "bus A's scheduled dispatch waits for room")
        // A's later events fall due behind the waiting one, scheduled out of due order; 100 ms
        // apart (1 ms apart, the loop was once descheduled under ThreadSanitizer past the first
        // due time, and 6 fell due before 5 was scheduled).
        let now = DispatchTime.now()
        for value in [6, 4, 5] { busA.schedule(Tick(value: value), at: now + .milliseconds(100 * (value - 3))) }

        let firedOnB = DispatchSemaphore(value: 0)
        let listener = busB.listen(Tick.self, executeOn: .synchronous) { _, _ in firedOnB.signal() }
        let onB = Tick(value: 1).schedule(after: .milliseconds(1), on: busB)
        let fired = await poolWait(firedOnB, seconds: 5)
        #expect(fired, "bus B's event, due 1 ms later, fired while bus A's scheduled dispatch waited")
        #expect(onB.hasFired)
        #expect(receiver.mailbox.blockedProducersForTesting == 1, "bus A's dispatch was still waiting")

        receiver.gate.open()
        #expect(await poolWait(receiver.handled, count: 7), "bus A's events all arrived once it had room")
        #expect(receiver.seen.values == Array(0...6), "bus A's scheduled events, in due order, after the queued ones")
        #expect(busA.statistics.dropped == 0)
        listener.cancel()
        await busA.shutdown()
        await busB.shutdown()
    }

    @Test("S1/D4: scheduled events on one bus fire in due order, those due together in the order scheduled")
    func oneBusFiresInDueOrder() async {
        let bus = EventBus(label: #function)
        let seen = CoreRecorder<Int>()
        let arrived = DispatchSemaphore(value: 0)
        let listener = bus.listen(Tick.self, executeOn: .synchronous) { tick, _ in
            seen.append(tick.value)
            arrived.signal()
        }
        // Pairs share a due time; the later pairs are scheduled first. The first is due well after
        // the loop has scheduled the last (under ThreadSanitizer, on a loaded machine, the loop was
        // once descheduled past a 50 ms margin, and the pairs scheduled first fired first).
        let pairs = 20
        let base = DispatchTime.now() + .milliseconds(500)
        for pair in (0..<pairs).reversed() {
            let due = base + .microseconds(300 * pair)
            bus.schedule(Tick(value: 2 * pair), at: due)
            bus.schedule(Tick(value: 2 * pair + 1), at: due, method: .stack)
        }
        #expect(await poolWait(arrived, count: 2 * pairs))
        #expect(seen.values == Array(0..<2 * pairs))
        listener.cancel()
        await bus.shutdown()
    }

    // MARK: The hand-off state machine, without threads

    @Test("S1/D6: a bus's hand-off starts one worker, keeps the order handed over, and forgets an idle bus")
    func handOffStateMachine() {
        var state = _BusHandOffState<String, Int>()
        #expect(state.handOver(1, to: "a") == .startWorker)
        #expect(state.handOver(2, to: "a") == .none, "a's worker runs it after 1")
        #expect(state.handOver(10, to: "b") == .startWorker, "b has a worker of its own")
        #expect(state.workerCount == 2)
        #expect(state.takeWaiting(for: "a") == [1, 2])
        #expect(state.handOver(3, to: "a") == .none, "a's worker is still running 1 and 2")
        #expect(state.takeWaiting(for: "a") == [3])
        #expect(state.takeWaiting(for: "a").isEmpty, "nothing left: a's worker ends")
        #expect(state.workerCount == 1, "an idle bus is forgotten")
        #expect(state.handOver(4, to: "a") == .startWorker, "a new worker for a's next due job")
        #expect(state.takeWaiting(for: "b") == [10])
        #expect(state.takeWaiting(for: "b").isEmpty)
        #expect(state.takeWaiting(for: "a") == [4])
        #expect(state.takeWaiting(for: "a").isEmpty)
        #expect(state.workerCount == 0)
    }
}
