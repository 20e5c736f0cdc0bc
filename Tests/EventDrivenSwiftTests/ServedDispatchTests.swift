import Dispatch
import Synchronization
import Testing

@testable import EventDrivenSwift

/// A dispatch served under the bus's registry lock allocates nothing there (issue 12.6): a mailbox
/// that would have to grow, or a fifth wake, ends the serving, and the rest of the route is
/// served once the lock is released, in the same order.
@Suite("L3/D3 (issue 12.6): nothing is allocated under the registry lock")
struct ServedDispatchTests {
    // MARK: The state machine alone

    @Test("enqueueIfRoom makes no entry where the lane or the holds would allocate, nor on a closed mailbox")
    func enqueueIfRoomRefusesToAllocate() {
        let fixture = MailboxStateMachineTests.Fixture()
        var machine = _MailboxStateMachine()
        var made = 0
        let fresh = machine.enqueueIfRoom(method: .queue, priority: .normal, for: fixture.recipient) {
            made += 1
            return fixture.entry(1)
        }
        #expect(fresh == .noRoom, "a fresh lane has no chunk, and the holds no storage")
        #expect(made == 0 && machine.pendingEntries == 0)
        // An ordinary enqueue allocates; afterwards the lane and the holds have room.
        _ = machine.enqueue(fixture.entry(1))
        let roomy = machine.enqueueIfRoom(method: .queue, priority: .normal, for: fixture.recipient) {
            fixture.entry(2)
        }
        #expect(roomy == .appended, "appended without allocating (the drainer is scheduled already)")
        #expect(machine.pendingEntries == 2)
        // Another lane of the same mailbox has no chunk yet.
        #expect(
            machine.enqueueIfRoom(method: .stack, priority: .high, for: fixture.recipient) { fixture.entry(3) }
                == .noRoom)
        var dropped = _MailboxBatch()
        _ = machine.close(droppingInto: &dropped)
        #expect(
            machine.enqueueIfRoom(method: .queue, priority: .normal, for: fixture.recipient) { fixture.entry(4) }
                == .noRoom, "closed")
    }

    @Test("a lane that fills its storage needs an allocation: enqueueIfRoom stops there until the lane has grown")
    func fullLaneRefuses() {
        let fixture = MailboxStateMachineTests.Fixture()
        var machine = _MailboxStateMachine()
        _ = machine.enqueue(fixture.entry(0))
        var accepted = 1
        while machine.enqueueIfRoom(
            method: .queue, priority: .normal, for: fixture.recipient, { fixture.entry(accepted) })
            != .noRoom
        {
            accepted += 1
            if accepted > 100_000 { break }
        }
        #expect(accepted > 1 && accepted < 100_000, "room until the lane's storage is full, then none")
        #expect(machine.pendingEntries == accepted)
        // An ordinary enqueue grows the lane (outside the registry lock); then there is room again.
        _ = machine.enqueue(fixture.entry(accepted))
        let after = machine.enqueueIfRoom(method: .queue, priority: .normal, for: fixture.recipient) {
            fixture.entry(accepted + 1)
        }
        #expect(after == .appended)
        var batch = _MailboxBatch()
        _ = machine.take(into: &batch, mayIdle: true)
        #expect(MailboxStateMachineTests().values(batch.entries) == Array(0...(accepted + 1)), "nothing lost, in order")
    }

    // MARK: Through the bus

    private struct Numbered: Eventable { let value: Int }

    private final class Receiver: EventThread, @unchecked Sendable {  // its state is a Sendable recorder
        let seen = CoreRecorder<Int>()
        override func registerEventListeners() {
            addEventCallback(Numbered.self) { [seen] (event: Numbered, _: EventMetadata) in seen.append(event.value) }
        }
    }

    @Test("six idle receivers of one type (more wakes than are kept under the lock) each get every event, in order")
    func moreWakesThanKept() async {
        let bus = EventBus(label: #function)
        let receivers = (0..<6).map { _ in Receiver(bus: bus) }
        for value in 0..<200 {
            bus.queue(Numbered(value: value))
            // Let the receivers go idle now and then, so that a dispatch has six drainers to wake.
            if value % 50 == 49 { await bus.drain() }
        }
        await bus.drain()
        for receiver in receivers {
            #expect(receiver.seen.values == Array(0..<200))
        }
        #expect(bus.statistics.delivered == 1_200)
        for receiver in receivers { receiver.cancel() }
        await bus.shutdown()
    }

    @Test("a backlog that outgrows the mailbox's kept chunks is delivered whole and in order")
    func growingBacklog() async {
        let bus = EventBus(label: #function)
        let gate = DispatchSemaphore(value: 0)
        let seen = LockedValue<[Int]>([])
        let blocked = Atomic<Bool>(false)
        bus.listen(Numbered.self, executeOn: .listenerThread) { event, _ in
            if !blocked.exchange(true, ordering: .relaxed) { gate.wait() }
            seen.withLock { $0.append(event.value) }
        }
        let count = 5_000
        for value in 0..<count { bus.queue(Numbered(value: value)) }
        gate.signal()
        await bus.drain()
        #expect(seen.withLock { $0 } == Array(0..<count))
        #expect(bus.statistics.delivered == count)
        await bus.shutdown()
    }

    @Test(
        "stacked events to several subscriptions of one receiver keep registration order across a partly served route")
    func stackedOrderAcrossPartialServing() async {
        let bus = EventBus(label: #function)
        let thread = EventThread(bus: bus)
        let order = LockedValue<[String]>([])
        let others = (0..<5).map { _ in Receiver(bus: bus) }
        thread.addEventCallback(Numbered.self) { (_: Numbered, _: EventMetadata) in order.withLock { $0.append("a") } }
        thread.addEventCallback(Numbered.self) { (_: Numbered, _: EventMetadata) in order.withLock { $0.append("b") } }
        bus.stack(Numbered(value: 1))
        await bus.drain()
        #expect(order.withLock { $0 } == ["a", "b"])
        for other in others { #expect(other.seen.values == [1]) }
        thread.cancel()
        for other in others { other.cancel() }
        await bus.shutdown()
    }
}
