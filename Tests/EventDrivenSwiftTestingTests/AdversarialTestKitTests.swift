// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import EventDrivenSwiftTesting
import Testing

// Second black-box probe of the test kit: EventRecorder's waits and ManualClock at the edges.

struct P2KitTick: Eventable, Equatable { let n: Int }

@Suite("Adversarial probe 2 (test kit)")
struct AdversarialProbe2TestingTests {
    @Test(
        "K1: next(timeout: .zero) and waitFor(count:timeout: .zero) return what is already recorded instead of throwing"
    )
    func zeroTimeoutReturnsRecorded() async throws {
        let bus = EventBus(label: "p2k-zero")
        let recorder = bus.record(P2KitTick.self)
        bus.dispatchNow(P2KitTick(n: 1))
        #expect(try await recorder.waitFor(count: 1, timeout: .zero) == [P2KitTick(n: 1)])
        #expect(try await recorder.next(timeout: .zero) == P2KitTick(n: 1))
        await #expect(throws: EventRecorderTimeout.self) { try await recorder.next(timeout: .zero) }
        #expect(try await recorder.waitFor(count: 0, timeout: .zero).isEmpty)
        await bus.shutdown()
    }

    @Test("K1: a negative timeout is a timeout, not a trap or a hang; it says how many arrived")
    func negativeTimeout() async throws {
        let bus = EventBus(label: "p2k-negative")
        let recorder = bus.record(P2KitTick.self)
        bus.dispatchNow(P2KitTick(n: 1))
        do {
            _ = try await recorder.waitFor(count: 3, timeout: .seconds(-1))
            Issue.record("waitFor(count: 3) returned with one event recorded")
        } catch let timeout as EventRecorderTimeout {
            #expect(timeout.expected == 3 && timeout.received == 1, "\(timeout)")
        }
        await bus.shutdown()
    }

    @Test("K1: ten concurrent next() calls take ten distinct events, in order of the positions they took")
    func concurrentNextCallsTakeDistinctEvents() async throws {
        let bus = EventBus(label: "p2k-concurrentNext")
        let recorder = bus.record(P2KitTick.self)
        let taken = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 { group.addTask { try await recorder.next(timeout: .seconds(2)).n } }
            for n in 0..<10 { P2KitTick(n: n).queue(on: bus) }
            var all: [Int] = []
            for try await n in group { all.append(n) }
            return all
        }
        #expect(taken.sorted() == Array(0..<10))
        await bus.shutdown()
    }

    @Test("K1: after the bus shuts down a recorder stops recording; waits for more time out, saying what arrived")
    func recorderAfterShutdown() async throws {
        let bus = EventBus(label: "p2k-shut")
        let recorder = bus.record(P2KitTick.self)
        bus.dispatchNow(P2KitTick(n: 1))
        await bus.shutdown()
        #expect(!recorder.isRecording)
        bus.dispatchNow(P2KitTick(n: 2))  // rejected
        #expect(recorder.events == [P2KitTick(n: 1)])
        do {
            _ = try await recorder.waitFor(count: 2, timeout: .milliseconds(20))
            Issue.record("waitFor(count: 2) returned")
        } catch let timeout as EventRecorderTimeout {
            #expect(timeout.received == 1)
        }
        let late = bus.record(P2KitTick.self)
        #expect(!late.isRecording)
    }

    @Test(
        "K1: ManualClock saturates at the end of time: huge delays neither trap nor fire early, and fire when reached")
    func manualClockSaturates() async {
        let bus = EventBus.deterministic(label: "p2k-clockHuge")
        let recorder = bus.record(P2KitTick.self)
        let clock = ManualClock(now: DispatchTime(uptimeNanoseconds: 1_000))
        let far = clock.schedule(P2KitTick(n: 1), on: bus, after: .seconds(Int64.max))
        let farther = clock.schedule(
            P2KitTick(n: 2), on: bus,
            after: Duration(secondsComponent: Int64.max, attosecondsComponent: 999_999_999_999_999_999))
        let negative = clock.schedule(P2KitTick(n: 0), on: bus, after: .seconds(-5))
        #expect(clock.advance(by: .zero) == 1)
        #expect(negative.hasFired && recorder.events == [P2KitTick(n: 0)])
        #expect(clock.advance(by: .seconds(1_000_000)) == 0)
        #expect(!far.hasFired && !farther.hasFired)
        #expect(clock.advance(by: .seconds(Int64.max)) == 2)
        #expect(recorder.events == [P2KitTick(n: 0), P2KitTick(n: 1), P2KitTick(n: 2)])
        #expect(clock.advance(by: .seconds(Int64.max)) == 0)  // the end of time: stays there
        #expect(clock.now.uptimeNanoseconds == UInt64.max)
        #expect(clock.pendingCount == 0 && clock.nextDueTime == nil)
        await bus.shutdown()
    }

    @Test("K1: ManualClock handles: cancel() says whether it prevented the dispatch; advance(to:) never goes back")
    func manualClockHandlesAndBackwards() async {
        let bus = EventBus.deterministic(label: "p2k-clockHandles")
        let recorder = bus.record(P2KitTick.self)
        let clock = ManualClock(now: DispatchTime(uptimeNanoseconds: 1_000_000))
        let a = clock.schedule(P2KitTick(n: 1), on: bus, after: .seconds(1))
        let b = clock.schedule(P2KitTick(n: 2), on: bus, after: .seconds(2))
        #expect(b.cancel())
        #expect(!b.cancel())
        #expect(clock.advance(by: .seconds(5)) == 1)
        #expect(!a.cancel() && a.hasFired && !a.isCancelled)
        let now = clock.now
        #expect(clock.advance(to: DispatchTime(uptimeNanoseconds: 1)) == 0)
        #expect(clock.now == now)
        #expect(recorder.events == [P2KitTick(n: 1)])
        await bus.shutdown()
    }

    @Test(
        "K1: a handler that reschedules on the clock during advance: each link falls due in the same advance, counted")
    func manualClockChainInOneAdvance() async {
        let bus = EventBus.deterministic(label: "p2k-clockChain")
        let clock = ManualClock(now: DispatchTime(uptimeNanoseconds: 1_000_000))
        let seen = Collected<Int>()
        let handle = bus.listen(P2KitTick.self, executeOn: .synchronous) { tick, _ in
            seen.append(tick.n)
            clock.schedule(P2KitTick(n: tick.n + 1), on: bus, after: .seconds(10))
        }
        clock.schedule(P2KitTick(n: 0), on: bus, after: .seconds(10))
        #expect(clock.advance(by: .seconds(35)) == 3)
        #expect(seen.values == [0, 1, 2])
        #expect(clock.pendingCount == 1)
        #expect(clock.nextDueTime?.uptimeNanoseconds == 1_000_000 + 40_000_000_000)
        handle.cancel()
        await bus.shutdown()
        #expect(clock.advance(by: .seconds(10)) == 0)  // its bus shut down
    }

    @Test(
        "K1: ManualClock: a delay of 18,446,744,074 s (past UInt64 nanoseconds) does not fire after advancing one second"
    )
    func manualClockDelayPastUInt64Nanoseconds() async {
        let bus = EventBus.deterministic(label: "p2k-clockWrap")
        let recorder = bus.record(P2KitTick.self)
        let clock = ManualClock(now: DispatchTime(uptimeNanoseconds: 1_000_000))
        let handle = clock.schedule(P2KitTick(n: 1), on: bus, after: .seconds(18_446_744_074))
        #expect(
            handle.dueTime.uptimeNanoseconds > clock.now.uptimeNanoseconds + 1_000_000_000,
            "due \(handle.dueTime.uptimeNanoseconds)")
        #expect(clock.advance(by: .seconds(1)) == 0)
        #expect(recorder.events.isEmpty && !handle.hasFired)
        let before = clock.now.uptimeNanoseconds
        _ = clock.advance(by: .seconds(18_446_744_074))
        #expect(clock.now.uptimeNanoseconds == UInt64.max, "advanced by \(clock.now.uptimeNanoseconds - before) ns")
        await bus.shutdown()
    }

    @Test(
        "K1: waitFor and next with a timeout of Int64.max seconds neither trap nor time out; they return when the event comes"
    )
    func hugeTimeoutWaits() async throws {
        await #expect(processExitsWith: .success) {
            let bus = EventBus(label: "p2k-hugeTimeout")
            let recorder = bus.record(P2KitTick.self)
            let waiter = Task { try await recorder.waitFor(count: 1, timeout: .seconds(Int64.max)) }
            let next = Task { try await recorder.next(timeout: .seconds(Int64.max)) }
            for _ in 0..<1_000 { await Task.yield() }
            bus.dispatchNow(P2KitTick(n: 1))
            let events = try await waiter.value
            let first = try await next.value
            if events != [P2KitTick(n: 1)] || first != P2KitTick(n: 1) { fatalError("wrong events") }
        }
    }

    @Test("K1: on a deterministic bus, a .queue(q) listener runs on its queue, not before queue() returns")
    func deterministicQueueContext() async {
        let bus = EventBus.deterministic(label: "p2k-detQueue")
        let queue = DispatchQueue(label: "p2k-q")
        let seen = Collected<Int>()
        let handle = bus.listen(P2KitTick.self, executeOn: .queue(queue)) { tick, _ in seen.append(tick.n) }
        let release = DispatchSemaphore(value: 0)
        queue.async { release.wait() }  // the queue is busy until released
        P2KitTick(n: 1).queue(on: bus)
        #expect(seen.values.isEmpty, "a .queue(q) listener ran before queue() returned")
        release.signal()
        await bus.drain()
        #expect(seen.values == [1])
        handle.cancel()
        await bus.shutdown()
    }
}
