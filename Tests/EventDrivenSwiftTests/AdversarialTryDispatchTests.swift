// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: tryDispatch")
struct AdversarialTryDispatchTests {
    @Test(
        "R3/R2: tryDispatch throws only for its own event: a .synchronous listener's plain queue() refused inside it goes to the error handler, not to tryDispatch"
    )
    func tryDispatchBlamesOnlyItsOwnEvent() async throws {
        let bus = EventBus(label: "p2-tryNested")
        let errors = coreCollectErrors(on: bus)
        let full = await fullReceiver(on: bus)
        #expect(throws: EventDrivenError.self) { try bus.tryDispatch(P2Inner(n: 9)) }  // control: its own event
        #expect(errors.count == 0)
        let outerRuns = CoreCounter()
        let handle = bus.listen(P2Outer.self, executeOn: .synchronous) { _, _ in
            outerRuns.increment()
            P2Inner(n: 2).queue(on: bus)  // refused: the mailbox is full
        }
        var thrown: EventDrivenError?
        do { try bus.tryDispatch(P2Outer(n: 1)) } catch { thrown = error }
        #expect(outerRuns.count == 1)
        #expect(thrown == nil, "tryDispatch(P2Outer) threw for another event: \(String(describing: thrown))")
        #expect(
            errors.values.filter { $0.code == .mailboxFull }.count == 1,
            "the plain queue()'s refusal should reach the error handler: \(errors.values)")
        full.gate.open()
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        handle.cancel()
        await bus.shutdown()
        #expect(bus.statistics.dropped == 2, "\(bus.statistics)")
    }

    @Test(
        "R3/W1: a consumer's queue() refused while tryDispatch offers it an event reaches the error handler, not tryDispatch"
    )
    func tryDispatchConsumerRefusalReported() async throws {
        let bus = EventBus(label: "p2-tryConsumer")
        let errors = coreCollectErrors(on: bus)
        let full = await fullReceiver(on: bus)
        let consumer = P2Consumer([P2Outer.self]) { _, _ in P2Inner(n: 3).queue(on: bus) }  // refused: full
        #expect(bus.register(consumer))
        var thrown: EventDrivenError?
        do { try bus.tryDispatch(P2Outer(n: 1)) } catch { thrown = error }
        #expect(consumer.seen.values == ["P2Outer"])
        #expect(thrown == nil, "tryDispatch(P2Outer) threw for the consumer's event: \(String(describing: thrown))")
        #expect(errors.values.filter { $0.code == .mailboxFull }.count == 1, "\(errors.values)")
        full.gate.open()
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        #expect(bus.unregister(consumer))
        await bus.shutdown()
    }

    @Test(
        "R3: a .taskThread listener started by tryDispatch whose own queue() is refused: the refusal reaches the error handler"
    )
    func tryDispatchTaskListenerRefusalReported() async throws {
        let bus = EventBus(label: "p2-tryTask")
        let errors = coreCollectErrors(on: bus)
        let full = await fullReceiver(on: bus)
        let done = DispatchSemaphore(value: 0)
        let handle = bus.listen(P2Outer.self, executeOn: .taskThread) { _, _ in
            P2Inner(n: 2).queue(on: bus)  // refused: the mailbox is full
            done.signal()
        }
        try bus.tryDispatch(P2Outer(n: 1))
        // Waited for off the cooperative pool, which the task listener needs: blocking a pool
        // thread here timed out under ThreadSanitizer with other tests running (the task never ran).
        #expect(await poolWait(done, seconds: 10))
        #expect(
            errors.values.filter { $0.code == .mailboxFull }.count == 1,
            "the task listener's refusal should reach the error handler: \(errors.values)")
        full.gate.open()
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        handle.cancel()
        await bus.shutdown()
        #expect(bus.statistics.dropped == 1, "\(bus.statistics)")
    }

    @Test("R5: tryDispatch after shutdown throws busShutDown and counts one rejection; dispatchNow is rejected too")
    func tryDispatchAfterShutdown() async {
        let bus = EventBus(label: "p2-tryShut")
        let errors = coreCollectErrors(on: bus)
        await bus.shutdown()
        #expect(throws: EventDrivenError.self) { try bus.tryDispatch(P2Tick(n: 0), method: .stack, priority: .lowest) }
        bus.dispatchNow(P2Tick(n: 1))
        #expect(bus.statistics.rejected == 2, "\(bus.statistics)")
        #expect(errors.values.map(\.code) == [.busShutDown, .busShutDown], "\(errors.values)")
    }

    @Test(
        "R3: tryDispatch throws mailboxFull for a .blockProducer(timeout:) receiver that stays full, not for .dropNewest"
    )
    func tryDispatchOtherPolicies() async throws {
        let bus = EventBus(label: "p2-tryPolicies")
        let blocking = P2BlockFull(bus: bus)
        let dropping = P2DropFull(bus: bus)
        P2Inner(n: 0).queue(on: bus)
        await blocking.gate.waitUntilEntered()
        await dropping.gate.waitUntilEntered()
        P2Inner(n: 1).queue(on: bus)  // fills both
        var thrown: EventDrivenError?
        do { try bus.tryDispatch(P2Inner(n: 2)) } catch { thrown = error }
        #expect(thrown?.code == .mailboxFull)
        #expect(thrown?.receiver?.contains("P2BlockFull") == true, "\(String(describing: thrown))")
        blocking.gate.open()
        dropping.gate.open()
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        await bus.shutdown()
        #expect(bus.statistics.dropped == 2 && bus.statistics.delivered == 4, "\(bus.statistics)")
    }
}
