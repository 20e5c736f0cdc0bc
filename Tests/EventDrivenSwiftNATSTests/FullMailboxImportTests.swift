// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Logging
import Testing

@testable import EventDrivenSwiftNATS

/// A receiver on the bridge's bus whose bounded mailbox (capacity 1, `.failDispatch`) is full
/// while the bridge imports: `tryDispatch` throws `.mailboxFull` for the imported events it
/// refuses. Before, the bridge swallowed that refusal: not counted, not logged, and not seen by
/// the bus's error handler either (`tryDispatch` throws it instead of reporting it). Now it is
/// counted in `refusedByFullMailbox` and logged; the message is acknowledged as before (the
/// bus's other receivers took the event, or, for `listen`, the bridge's own listener), and the
/// import goes on.
@Suite("X8: a full mailbox on the bus under its bridge", .serialized, .timeLimit(.minutes(2)))
struct FullMailboxImportTests {
    /// Refuses more than 1 waiting event (``HeldReceiver``).
    final class FullReceiver: HeldReceiver, @unchecked Sendable {  // its state is its base class's
        override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 1, whenFull: .failDispatch) }
    }

    /// A receiver whose thread is held and whose mailbox is full (checked: one more event is refused).
    static func fullReceiver(on bus: EventBus) async throws -> FullReceiver {
        let receiver = FullReceiver(bus: bus)
        #expect(await receiver.fill(on: bus), "the receiver never ran")
        let refusal = #expect(throws: EventDrivenError.self) { try bus.tryDispatch(Hold()) }
        #expect(refusal?.code == .mailboxFull, "the receiver's mailbox is not full")
        return receiver
    }

    /// Keeps the warnings logged to it.
    struct WarningRecorder: LogHandler {
        let warnings: Collected<String>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .warning

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            if event.level == .warning { warnings.append("\(event.message)") }
        }
    }

    /// A bridge with a long ack wait: a message left unsettled would come back only after it.
    static func bridge(
        _ server: NATSServerProcess, bus: EventBus, warnings: Collected<String>? = nil
    ) throws -> NATSBridge {
        var configuration = NATSBridgeConfiguration()
        configuration.storage = .memory
        configuration.consumers.ackWait = .seconds(60)
        configuration.consumers.fetchExpiry = .milliseconds(200)
        let logger = warnings.map { warnings in Logger(label: "worker") { _ in WarningRecorder(warnings: warnings) } }
        return try NATSBridge(
            bus: bus, events: try registry(), server: server.url, configuration: configuration,
            logger: logger ?? quietLogger)
    }

    /// Publishes orders 1…4, then starts a worker on a bus whose receiver is full, importing with
    /// `register`; checks `check` on the worker, then stops everything.
    func withFullWorker(
        register: (NATSBridge) throws -> Void,
        check: (NATSBridge, EventBus, FullReceiver) async throws -> Void
    ) async throws {
        try await withNATSServer { server in
            let producer = try Self.bridge(server, bus: EventBus(label: "producer"))
            let producing = Task { try await producer.run() }
            try await producer.waitUntilRunning()
            for id in 1...4 { try await producer.publishAndWait(OrderPlaced(orderID: id, customerID: 1, amount: 1)) }

            let bus = EventBus(label: "full")
            let busErrors = Collected<String>()
            bus.setErrorHandler { busErrors.append("\($0.code)") }
            let receiver = try await Self.fullReceiver(on: bus)
            let warnings = Collected<String>()
            let worker = try Self.bridge(server, bus: bus, warnings: warnings)
            try register(worker)
            let running = Task { try await worker.run() }
            try await worker.waitUntilRunning()
            try await check(worker, bus, receiver)
            // Logged the first time (then every 1,000th).
            let refusals = warnings.values.filter { $0.contains("did not reach every receiver") }
            #expect(refusals.count == 1 && refusals[0].contains("was full"), "\(warnings.values)")
            // `tryDispatch` throws its refusals to the bridge: the bus's error handler sees none.
            #expect(busErrors.values.isEmpty, "\(busErrors.values)")

            receiver.open()
            await expectShutDown([worker, producer], runs: [running, producing])
            await bus.shutdown()
        }
    }

    /// The first batch comes while the receiver is held: each of its events is refused. Its
    /// messages wait for the bus to drain (the held receiver included), then are acknowledged;
    /// the later batches, once it runs again, may be refused in part (capacity 1).
    @Test(
        "importEvents(): events a full mailbox refuses are counted, acknowledged with their batch, and the import goes on"
    )
    func importEventsRefusedByFullMailbox() async throws {
        try await withFullWorker { worker in
            try worker.importEvents(OrderPlaced.self, mode: .group("workers"))
        } check: { worker, bus, receiver in
            #expect(
                await poll(timeout: .seconds(60)) { worker.statistics.refusedByFullMailbox >= 1 },
                "\(worker.statistics)")
            // Not acknowledged while the bus has not drained, nor sent back.
            #expect(worker.statistics.handled == 0 && worker.statistics.retried == 0, "\(worker.statistics)")
            receiver.open()
            #expect(await poll(timeout: .seconds(60)) { worker.statistics.handled == 4 }, "\(worker.statistics)")
            let statistics = worker.statistics
            #expect(statistics.received == 4 && statistics.retried == 0 && statistics.refusedByBus == 0)
            // Each event reached the receiver or was refused, counted by the bridge and by the bus
            // (which also dropped the probe's `Hold`).
            let orders = receiver.orders.values
            #expect(
                orders.count + statistics.refusedByFullMailbox == 4 && Set(orders).count == orders.count,
                "\(orders), \(statistics)")
            #expect(bus.statistics.dropped == 1 + statistics.refusedByFullMailbox, "\(bus.statistics)")
        }
    }

    /// `listen` dispatches its own delivery type, which only its own async listener (whose queue
    /// has no bound) takes in the public API; a receiver of it made here (`@testable`) refuses
    /// it as full. The bridge's listener still has each delivery: each is handled once and
    /// acknowledged, none sent back (a `-NAK` would have it handled twice).
    @Test("listen(): another receiver's full mailbox is counted; every delivery is handled once")
    func listenWithAnotherReceiverFull() async throws {
        let handled = Collected<Int>()
        try await withFullWorker { worker in
            try worker.listen(OrderPlaced.self, mode: .group("workers")) { order, _ in handled.append(order.orderID) }
        } check: { worker, _, receiver in
            #expect(
                await poll(timeout: .seconds(60)) {
                    worker.statistics.handled == 4 && worker.statistics.refusedByFullMailbox == 4
                }, "\(worker.statistics)")
            let statistics = worker.statistics
            #expect(statistics.received == 4 && statistics.retried == 0 && statistics.refusedByBus == 0)
            #expect(handled.values.sorted() == [1, 2, 3, 4])
            #expect(receiver.orders.values.isEmpty)
        }
    }
}
