// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import EventDrivenSwift

/// A state's changes reach its subscribers in order without a lock held while they are handed
/// over (issue 12 §3.1, issue 13.6).
@Suite("C3: state changes, in order and outside the state's lock")
struct StateOrderingTests {
    private static let level = EventState<Int>(label: "level")

    /// A thread whose mailbox holds one event and makes producers wait when full.
    private final class Tight: EventThread, @unchecked Sendable {  // no state of its own
        override class var mailboxPolicy: EventMailboxPolicy {
            .bounded(capacity: 1, whenFull: .blockProducer(timeout: nil))
        }
    }

    @Test("C3 (issue 12 §3.1): a blocking subscriber's handler may read the state while a setter waits for room")
    func setterBlockedOnAFullMailbox() async {
        let bus = EventBus(label: #function)
        let tight = Tight(bus: bus)
        let gate = CoreGate()
        let seen = CoreRecorder<Int>()
        bus.subscribe(Self.level, on: .thread(tight)) { value in
            if value == 1 { gate.block() }
            seen.append(bus.value(of: Self.level) ?? -1)
        }
        bus.set(Self.level, to: 1)
        await gate.waitUntilEntered()
        let finished = DispatchSemaphore(value: 0)
        Thread {
            bus.set(Self.level, to: 2)  // fills the mailbox
            bus.set(Self.level, to: 3)  // waits for room
            finished.signal()
        }.start()
        let blocked = await coreEventually { tight.mailbox.blockedProducersForTesting == 1 }
        #expect(blocked)
        gate.open()
        // A failure detector, not a synchronization: the set returns as soon as there is room.
        let returned = await poolWait(finished)
        #expect(returned, "the handler and the blocked setter deadlocked on the state's lock")
        guard returned else { return }
        await bus.drain()
        #expect(seen.count == 3)
        tight.cancel()
        await bus.shutdown()
    }

    @Test(
        "C3: a change made while another setter waits for room is handed over by that setter, after its own, and its setter does not wait"
    )
    func changeQueuedBehindABlockedSetter() async {
        let bus = EventBus(label: #function)
        let tight = Tight(bus: bus)
        let gate = CoreGate()
        let seen = CoreRecorder<Int>()
        let state = EventState<Int>(label: "queued")
        bus.subscribe(state, on: .thread(tight)) { value in
            if value == 1 { gate.block() }
            seen.append(value)
        }
        bus.set(state, to: 1)
        await gate.waitUntilEntered()
        let first = DispatchSemaphore(value: 0)
        Thread {
            bus.set(state, to: 2)  // fills the mailbox
            bus.set(state, to: 3)  // waits for room, handing its change over
            first.signal()
        }.start()
        #expect(await coreEventually { tight.mailbox.blockedProducersForTesting == 1 })
        let second = DispatchSemaphore(value: 0)
        Thread {
            bus.set(state, to: 4)  // left to the setter that is handing changes over
            second.signal()
        }.start()
        // Returns while the first setter still waits (a setter handing its own change over
        // would wait for room too, and could overtake the first).
        #expect(await poolWait(second, seconds: 10), "the second setter waited for room")
        #expect(tight.mailbox.blockedProducersForTesting == 1)
        gate.open()
        #expect(await poolWait(first, seconds: 10))
        await bus.drain()
        #expect(seen.values == [1, 2, 3, 4])
        tight.cancel()
        await bus.shutdown()
    }

    @Test("C3 (issue 13.6): a state's values stream never repeats a value, under concurrent setters")
    func valuesStreamNeverRepeats() async {
        let bus = EventBus(label: #function)
        let stream = bus.values(of: Self.level)
        let consumer = Task {
            var values: [Int] = []
            for await value in stream { values.append(value) }
            return values
        }
        let changes = CoreCounter()
        let setsPerThread = coreUnderThreadSanitizer ? 2_000 : 20_000
        await coreOnThreads(4) { thread in
            for index in 0..<setsPerThread where bus.set(Self.level, to: (index + thread) % 2) {
                changes.increment()
            }
        }
        await bus.shutdown()
        let values = await consumer.value
        #expect(values.count == changes.count, "every change, once")
        let repeats = zip(values, values.dropFirst()).filter { $0 == $1 }.count
        #expect(repeats == 0, "consecutive equal values")
    }

    @Test("C3: a value that a newer one overtook is skipped as superseded, with its dead letter, not as filtered")
    func overtakenValueIsSuperseded() async {
        let bus = EventBus(label: #function)
        let state = EventState<Int>(label: "overtaken")
        let letters = bus.deadLetters()
        let first = CoreRecorder<Int>()
        let second = CoreRecorder<Int>()
        // The first subscriber sets 2 while 1 is being handed over: the second gets 2 first,
        // and 1, older, must not follow it.
        bus.subscribe(state, on: .synchronous) { value in
            first.append(value)
            if value == 1 { bus.set(state, to: 2) }
        }
        bus.subscribe(state, on: .synchronous) { value in second.append(value) }
        bus.set(state, to: 1)
        #expect(first.values == [1, 2])
        #expect(second.values == [2])
        await bus.shutdown()
        let reasons = await letters.reduce(into: [DeadLetter.Reason]()) { $0.append($1.reason) }
        let statistics = bus.statistics
        #expect(statistics.superseded == 1, "\(statistics)")
        #expect(statistics.filtered == 0)
        #expect(reasons == [.superseded])
    }
}
