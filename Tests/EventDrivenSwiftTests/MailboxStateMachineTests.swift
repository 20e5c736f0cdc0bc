import Dispatch
import Testing

@testable import EventDrivenSwift

/// The mailbox's state machine alone: every transition, its returned action and the state it
/// leaves, without a lock, a thread or a clock.
@Suite("Mailbox state machine (D3, T2, T4, R3, A3)")
struct MailboxStateMachineTests {
    // MARK: Enqueue and take

    @Test("T2: an enqueue into an idle mailbox wakes the drainer; into a scheduled one it does not")
    func enqueueIntoIdleAndBusy() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine()
        #expect(!machine.isScheduled && machine.load == 0)
        #expect(outcome(machine.enqueue(fixture.entry(1))) == .wakeDrainer)
        #expect(machine.isScheduled == true)
        #expect(outcome(machine.enqueue(fixture.entry(2))) == .none, "already scheduled: no second wake")
        #expect(machine.pendingEntries == 2 && machine.pendingDeliveries == 2 && machine.load == 2)
    }

    @Test(
        "T2/D3: a take moves the pending entries, in D3 order, into the drainer's batch; what arrives meanwhile waits")
    func takeMovesEverythingPending() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine()
        _ = machine.enqueue(fixture.entry(1, .queue, .normal))
        _ = machine.enqueue(fixture.entry(2, .stack, .normal))
        _ = machine.enqueue(fixture.entry(3, .queue, .high))
        var batch = _MailboxBatch()
        #expect(machine.take(into: &batch, mayIdle: true) == .runBatch(deliveries: 3, releasing: 0))
        #expect(values(batch.entries) == [2, 3, 1])
        #expect(machine.isRunningBatch && machine.pendingEntries == 0)
        #expect(machine.load == 3, "the batch in progress still counts")
        #expect(outcome(machine.enqueue(fixture.entry(4))) == .none, "scheduled while the batch runs")
        #expect(machine.load == 4 && machine.pendingDeliveries == 1)
        #expect(finished(machine.finishBatch()) == 0)
        #expect(!machine.isRunningBatch && machine.load == 1, "a counted batch no longer counts")
        batch.releaseEntries()
        #expect(machine.take(into: &batch, mayIdle: true) == .runBatch(deliveries: 1, releasing: 0))
        #expect(values(batch.entries) == [4])
    }

    @Test("T2: an empty take looks again until idling is allowed, then parks; the next enqueue wakes it")
    func emptyTakeParks() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine()
        _ = machine.enqueue(fixture.entry(1))
        var batch = _MailboxBatch()
        _ = machine.take(into: &batch, mayIdle: false)
        _ = machine.finishBatch()
        batch.releaseEntries()
        #expect(machine.take(into: &batch, mayIdle: false) == .lookAgain)
        #expect(machine.isScheduled == true, "still scheduled: a producer must not wake a second drainer")
        #expect(outcome(machine.enqueue(fixture.entry(2))) == .none)
        #expect(machine.take(into: &batch, mayIdle: true) == .runBatch(deliveries: 1, releasing: 0))
        _ = machine.finishBatch()
        batch.releaseEntries()
        #expect(machine.take(into: &batch, mayIdle: true) == .park)
        #expect(!machine.isScheduled && machine.load == 0)
        #expect(outcome(machine.enqueue(fixture.entry(3))) == .wakeDrainer, "idle again: the next producer wakes it")
    }

    @Test("an entry for a group of three subscriptions counts three deliveries, pending and in progress")
    func groupCountsEachDelivery() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine()
        #expect(outcome(machine.enqueue(fixture.groupEntry(1))) == .wakeDrainer)
        _ = machine.enqueue(fixture.entry(2))
        #expect(machine.pendingEntries == 2 && machine.pendingDeliveries == 4)
        var batch = _MailboxBatch()
        #expect(machine.take(into: &batch, mayIdle: true) == .runBatch(deliveries: 4, releasing: 0))
        #expect(machine.load == 4 && machine.pendingDeliveries == 0)
    }

    @Test("the holds travel with the entries: a subscription outlives the machine's hands until the batch is released")
    func holdsTravelWithTheBatch() {
        let bus = EventBus(label: "holds")
        var machine = _MailboxStateMachine()
        var batch = _MailboxBatch()
        weak var weakSubscription: _Subscription?
        do {
            let subscription = Fixture.subscription(bus)
            weakSubscription = subscription
            _ = machine.enqueue(Fixture.entry(for: subscription, 1))
        }
        #expect(weakSubscription != nil, "held while pending")
        _ = machine.take(into: &batch, mayIdle: true)
        #expect(weakSubscription != nil, "held by the batch")
        batch.releaseEntries()
        #expect(weakSubscription == nil, "freed by whoever releases the batch, outside the lock")
    }

    // MARK: Bounded mailboxes

    @Test(
        "R3: a full mailbox applies its policy to one more entry",
        arguments: [
            (EventOverflowPolicy.dropNewest, Outcome.dropNewest(3)),
            (.failDispatch, .refuse(3)),
            (.dropOldest, .droppedOldest(1)),
            (.blockProducer(timeout: nil), .blockProducer(3)),
        ])
    func fullMailbox(policy: EventOverflowPolicy, expected: Outcome) {
        let fixture = Fixture()
        var machine = _MailboxStateMachine(capacity: 2, whenFull: policy)
        #expect(outcome(machine.enqueue(fixture.entry(1))) == .wakeDrainer)
        #expect(outcome(machine.enqueue(fixture.entry(2))) == .none)
        #expect(outcome(machine.enqueue(fixture.entry(3))) == expected)
        #expect(machine.pendingEntries == 2 && machine.pendingDeliveries == 2, "never more than the capacity")
        #expect(machine.blockedProducers == (expected == .blockProducer(3) ? 1 : 0))
        var batch = _MailboxBatch()
        _ = machine.take(into: &batch, mayIdle: true)
        #expect(values(batch.entries) == (expected == .droppedOldest(1) ? [2, 3] : [1, 2]))
    }

    @Test("R3: dropOldest drops the entry dispatched earliest across lanes, with every delivery it stood for")
    func dropOldestAcrossLanes() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine(capacity: 2, whenFull: .dropOldest)
        _ = machine.enqueue(fixture.entry(1, .queue, .lowest, at: 200))
        _ = machine.enqueue(fixture.groupEntry(2, .stack, .highest, at: 100))
        #expect(machine.pendingDeliveries == 4)
        #expect(outcome(machine.enqueue(fixture.entry(3, .queue, .normal, at: 300))) == .droppedOldest(2))
        #expect(machine.pendingEntries == 2 && machine.pendingDeliveries == 2, "the group's three deliveries left")
        #expect(outcome(machine.enqueue(fixture.entry(4, .queue, .normal, at: 400))) == .droppedOldest(1))
        var batch = _MailboxBatch()
        #expect(machine.take(into: &batch, mayIdle: true) == .runBatch(deliveries: 2, releasing: 0))
        #expect(values(batch.entries) == [3, 4])
    }

    @Test("R3: blocked producers are counted under the check and released by the next take; the batch does not count")
    func blockedProducersReleasedByTake() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine(capacity: 1, whenFull: .blockProducer(timeout: nil))
        _ = machine.enqueue(fixture.entry(1))
        #expect(outcome(machine.enqueue(fixture.entry(2))) == .blockProducer(2))
        #expect(outcome(machine.enqueue(fixture.entry(3))) == .blockProducer(3))
        #expect(machine.blockedProducers == 2)
        var batch = _MailboxBatch()
        #expect(machine.take(into: &batch, mayIdle: true) == .runBatch(deliveries: 1, releasing: 2))
        #expect(machine.blockedProducers == 0)
        #expect(outcome(machine.enqueue(fixture.entry(2))) == .none, "room again while the batch runs")
        #expect(outcome(machine.enqueue(fixture.entry(3))) == .blockProducer(3), "full again: counted again")
        #expect(machine.blockedProducers == 1)
    }

    @Test("R3/D5: the drainer's own producer is accepted over capacity and no longer counted as blocked")
    func overCapacityForTheDrainer() {
        var dropped = _MailboxBatch()
        let fixture = Fixture()
        var machine = _MailboxStateMachine(capacity: 1, whenFull: .blockProducer(timeout: nil))
        _ = machine.enqueue(fixture.entry(1))
        #expect(outcome(machine.enqueue(fixture.entry(2))) == .blockProducer(2))
        #expect(outcome(machine.enqueueOverCapacity(fixture.entry(2))) == .none)
        #expect(machine.pendingEntries == 2 && machine.blockedProducers == 0)
        _ = machine.close(droppingInto: &dropped)
        #expect(outcome(machine.enqueueOverCapacity(fixture.entry(3))) == .discard(3), "closed: refused even so")
    }

    @Test("R3: the capacity bounds waiting entries only, not the batch in progress")
    func capacityExcludesTheBatch() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine(capacity: 2, whenFull: .dropNewest)
        _ = machine.enqueue(fixture.entry(1))
        _ = machine.enqueue(fixture.entry(2))
        var batch = _MailboxBatch()
        _ = machine.take(into: &batch, mayIdle: true)
        #expect(outcome(machine.enqueue(fixture.entry(3))) == .none)
        #expect(outcome(machine.enqueue(fixture.entry(4))) == .none)
        #expect(outcome(machine.enqueue(fixture.entry(5))) == .dropNewest(5))
        #expect(machine.load == 4)
    }

    // MARK: Barriers

    @Test("A3: a barrier runs at once on an idle mailbox, and on a closed one")
    func barrierRunsNow() {
        var dropped = _MailboxBatch()
        var machine = _MailboxStateMachine()
        #expect(machine.addBarrier({}) == .runNow)
        #expect(machine.pendingBarriers == 0 && !machine.isScheduled, "not kept, and nothing woken")
        let fixture = Fixture()
        var closed = _MailboxStateMachine()
        _ = closed.enqueue(fixture.entry(1))
        _ = closed.close(droppingInto: &dropped)
        #expect(closed.addBarrier({}) == .runNow)
    }

    @Test("A3: a barrier after entries travels with the batch that takes them; one after them waits for the next")
    func barrierAfterEntries() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine()
        _ = machine.enqueue(fixture.entry(1))
        #expect(machine.addBarrier({}) == .none)
        #expect(machine.pendingBarriers == 1)
        var batch = _MailboxBatch()
        #expect(machine.take(into: &batch, mayIdle: true) == .runBatch(deliveries: 1, releasing: 0))
        #expect(batch.entries.count == 1 && batch.barriers.count == 1)
        // Added while the batch runs: it waits for that batch, in a batch of its own.
        #expect(machine.addBarrier({}) == .none)
        _ = machine.finishBatch()
        batch.releaseEntries()
        batch.barriers.removeAll()
        #expect(machine.take(into: &batch, mayIdle: true) == .runBatch(deliveries: 0, releasing: 0))
        #expect(batch.entries.isEmpty && batch.barriers.count == 1)
        _ = machine.finishBatch()
        batch.barriers.removeAll()
        #expect(machine.take(into: &batch, mayIdle: true) == .park)
    }

    @Test("A3: an entry enqueued after a barrier comes in the same batch, before the barrier runs")
    func barrierBeforeEntries() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine()
        _ = machine.enqueue(fixture.entry(1))
        _ = machine.addBarrier({})
        _ = machine.enqueue(fixture.entry(2))
        var batch = _MailboxBatch()
        #expect(machine.take(into: &batch, mayIdle: true) == .runBatch(deliveries: 2, releasing: 0))
        #expect(values(batch.entries) == [1, 2] && batch.barriers.count == 1, "a barrier waits at least that long")
    }

    // MARK: The batch in progress

    @Test("T4: whenBatchCounted resumes at once without a batch, otherwise once the batch is counted")
    func batchWaiters() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine()
        #expect(finished(machine.whenBatchCounted({})) == 1)
        _ = machine.enqueue(fixture.entry(1))
        var batch = _MailboxBatch()
        _ = machine.take(into: &batch, mayIdle: true)
        #expect(finished(machine.whenBatchCounted({})) == 0)
        #expect(finished(machine.whenBatchCounted({})) == 0)
        #expect(finished(machine.finishBatch()) == 2)
        #expect(finished(machine.finishBatch()) == 0, "each waiter is resumed once")
    }

    // MARK: Closing

    @Test("T4: close() hands out what is pending, its barriers and blocked producers, and refuses more")
    func closeImmediately() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine(capacity: 3, whenFull: .blockProducer(timeout: nil))
        _ = machine.enqueue(fixture.entry(1))
        _ = machine.enqueue(fixture.groupEntry(2))
        _ = machine.addBarrier({})
        _ = machine.enqueue(fixture.entry(3))
        _ = machine.enqueue(fixture.entry(4))
        #expect(machine.blockedProducers == 1)
        var dropped = _MailboxBatch()
        let action = machine.close(droppingInto: &dropped)
        #expect(action.discarded == 5 && action.barriers.count == 1 && action.releasing == 1)
        #expect(!action.wakeDrainer, "a scheduled drainer finds the mailbox finished by itself")
        #expect(values(dropped.entries) == [1, 2, 3], "handed out, to be freed outside the lock")
        #expect(machine.lifecycle == .closed && machine.load == 0 && machine.blockedProducers == 0)
        #expect(outcome(machine.enqueue(fixture.entry(5))) == .discard(5))
        var batch = _MailboxBatch()
        #expect(machine.take(into: &batch, mayIdle: true) == .finish)
        let again = machine.close(droppingInto: &dropped)
        #expect(again.discarded == 0 && again.barriers.isEmpty && !again.wakeDrainer, "a second close does nothing")
    }

    @Test("T4: closing an idle mailbox wakes its drainer, so that it finishes")
    func closeIdle() {
        var dropped = _MailboxBatch()
        var machine = _MailboxStateMachine()
        let action = machine.close(droppingInto: &dropped)
        #expect(action.wakeDrainer && action.discarded == 0 && action.barriers.isEmpty)
        var batch = _MailboxBatch()
        #expect(machine.take(into: &batch, mayIdle: true) == .finish)
    }

    @Test("T4: close() during a batch discards only what waits; the batch's waiters still wait for its count")
    func closeDuringBatch() {
        var dropped = _MailboxBatch()
        let fixture = Fixture()
        var machine = _MailboxStateMachine()
        for value in 1...3 { _ = machine.enqueue(fixture.entry(value)) }
        var batch = _MailboxBatch()
        _ = machine.take(into: &batch, mayIdle: true)
        _ = machine.enqueue(fixture.entry(4))
        _ = machine.enqueue(fixture.entry(5))
        #expect(finished(machine.whenBatchCounted({})) == 0)
        let action = machine.close(droppingInto: &dropped)
        #expect(action.discarded == 2 && !action.wakeDrainer)
        #expect(machine.isRunningBatch == true, "the drainer counts what the close left of its batch")
        #expect(finished(machine.finishBatch()) == 1)
        batch.releaseEntries()
        #expect(machine.take(into: &batch, mayIdle: true) == .finish)
    }

    @Test("T4: closeAfterDraining() during a batch refuses more but delivers what waits, then finishes")
    func closeAfterDrainingDuringBatch() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine()
        _ = machine.enqueue(fixture.entry(1))
        var batch = _MailboxBatch()
        _ = machine.take(into: &batch, mayIdle: true)
        _ = machine.enqueue(fixture.entry(2))
        #expect(machine.closeAfterDraining() == .none, "the running drainer finishes the work")
        #expect(machine.lifecycle == .draining)
        #expect(outcome(machine.enqueue(fixture.entry(3))) == .discard(3))
        #expect(machine.closeAfterDraining() == .none, "a second call changes nothing")
        _ = machine.finishBatch()
        batch.releaseEntries()
        #expect(machine.take(into: &batch, mayIdle: true) == .runBatch(deliveries: 1, releasing: 0))
        #expect(values(batch.entries) == [2])
        _ = machine.finishBatch()
        batch.releaseEntries()
        #expect(machine.take(into: &batch, mayIdle: false) == .finish, "finishes rather than looking again")
        #expect(machine.lifecycle == .closed)
    }

    @Test("T4: closeAfterDraining() on an idle mailbox wakes the drainer to finish; close() afterwards still closes")
    func closeAfterDrainingIdle() {
        var dropped = _MailboxBatch()
        var machine = _MailboxStateMachine()
        #expect(machine.closeAfterDraining() == .wakeDrainer)
        #expect(machine.addBarrier({}) == .none, "the drainer's last look takes it")
        let action = machine.close(droppingInto: &dropped)
        #expect(!action.wakeDrainer && action.barriers.count == 1)
        #expect(machine.lifecycle == .closed)
    }

    @Test("R3/T4: a full mailbox that is closing refuses with discard, not with its overflow policy")
    func closingBeatsOverflow() {
        let fixture = Fixture()
        var machine = _MailboxStateMachine(capacity: 1, whenFull: .blockProducer(timeout: nil))
        _ = machine.enqueue(fixture.entry(1))
        _ = machine.closeAfterDraining()
        #expect(outcome(machine.enqueue(fixture.entry(2))) == .discard(2))
        #expect(machine.blockedProducers == 0)
    }
}
