// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

@testable import EventDrivenSwiftNATS

/// `importEvents()` into a receiver whose bounded mailbox is `.blockProducer(timeout: nil)`: its
/// dispatch waits for room. It used to wait in the importer's task, holding one of the threads of
/// Swift's cooperative pool (as many as the machine has cores, shared by every task of the
/// process) for as long as the receiver was full; it now waits on a dispatch queue of the
/// import's own, and the import still completes once the receiver makes room.
@Suite("X8: importing into a receiver that makes its producer wait", .serialized, .timeLimit(.minutes(2)))
struct ImportOffThePoolTests {
    /// Makes producers wait for room beyond 1 waiting event (``HeldReceiver``).
    final class WaitingReceiver: HeldReceiver, @unchecked Sendable {  // its state is its base class's
        override class var mailboxPolicy: EventMailboxPolicy {
            .bounded(capacity: 1, whenFull: .blockProducer(timeout: nil))
        }
    }

    @Test("the dispatch that waits for room runs outside any task, and the import completes once there is room")
    func importWaitsOffTheCooperativePool() async throws {
        try await withNATSServer { server in
            var configuration = NATSBridgeConfiguration()
            configuration.storage = .memory
            configuration.consumers.ackWait = .seconds(60)
            configuration.consumers.fetchExpiry = .milliseconds(200)
            let producer = try NATSBridge(
                bus: EventBus(label: "producer"), events: try registry(), server: server.url,
                configuration: configuration, logger: quietLogger)
            let producing = Task { try await producer.run() }
            try await producer.waitUntilRunning()
            for id in 1...2 { try await producer.publishAndWait(OrderPlaced(orderID: id, customerID: 1, amount: 1)) }

            let bus = EventBus(label: "worker")
            // Registered before the receiver, so it runs before the dispatch reaches the full
            // mailbox: for each imported order, whether its dispatch ran in a task.
            let dispatchedInTask = Collected<Bool>()
            bus.listen(OrderPlaced.self, executeOn: .synchronous) { @Sendable _, _ in
                dispatchedInTask.append(withUnsafeCurrentTask { $0 != nil })
            }
            let receiver = WaitingReceiver(bus: bus)
            // Its mailbox full: the next dispatch to it waits.
            #expect(await receiver.fill(on: bus), "the receiver never ran")

            let worker = try NATSBridge(
                bus: bus, events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            try worker.importEvents(OrderPlaced.self, mode: .group("workers"))
            let running = Task { try await worker.run() }
            try await worker.waitUntilRunning()
            // The first order's dispatch has passed the synchronous listener and waits for room.
            #expect(await poll(timeout: .seconds(60)) { !dispatchedInTask.values.isEmpty }, "nothing was imported")
            #expect(dispatchedInTask.values == [false], "the import waits in a task: \(dispatchedInTask.values)")
            #expect(worker.statistics.handled == 0 && receiver.orders.values.isEmpty, "\(worker.statistics)")

            receiver.open()
            #expect(await poll(timeout: .seconds(60)) { worker.statistics.handled == 2 }, "\(worker.statistics)")
            #expect(receiver.orders.values == [1, 2])
            #expect(dispatchedInTask.values == [false, false])
            #expect(worker.statistics.retried == 0 && worker.statistics.refusedByBus == 0, "\(worker.statistics)")

            await expectShutDown([worker, producer], runs: [running, producing])
            await bus.shutdown()
        }
    }
}
