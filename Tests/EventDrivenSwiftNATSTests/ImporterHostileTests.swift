// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// What the importer does with hostile deliveries (SPEC X4, issue 27 §1): each is settled on its
/// own, the others flow on.
@Suite("NATS importer with hostile deliveries", .timeLimit(.minutes(2)))
struct ImporterHostileTests {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "line one\r\nPUB injected 5\r\nline three" }
    }

    @Test(
        "X4: undecodable headers dead-letter that message alone, with its raw bytes; a delivery count of 0 does not trap; an error text with CR LF is one header line"
    )
    func hostileDeliveries() async throws {
        let block = "NATS/1.0\r\nno colon\r\n\r\n"
        let transport = ScriptedTransport([
            .init(),
            .init(
                headers: NATSHeaders(), headerError: .protocolError("header line without a colon"), rawHeaders: block,
                body: "raw"),
            .init(body: #"{"orderID":2,"customerID":2,"amount":3}"#, deliveryCount: 0),
            .init(body: #"{"orderID":3,"customerID":2,"amount":3}"#, deliveryCount: 1),
        ])
        var configuration = NATSBridgeConfiguration()
        configuration.consumers.maxDeliver = 1
        let bridge = NATSBridge(
            bus: EventBus(), events: try registry(), configuration: configuration, transport: transport,
            logger: quietLogger)
        let handled = Collected<Int>()
        try bridge.listen(OrderPlaced.self, mode: .group("g")) { order, _ in
            handled.append(order.orderID)
            if order.orderID == 2 { throw CancellationError() }
            if order.orderID == 3 { throw Failure() }
        }
        let letters = bridge.deadLetters()
        let running = Task { try await bridge.run() }
        try await bridge.waitUntilRunning()
        #expect(await poll(timeout: .seconds(60)) { transport.log.withLockedValue { $0.settlements.count } == 4 })
        let settlements = Set(transport.log.withLockedValue { $0.settlements })
        // 0: handled; 1: terminated (undecodable); 2: count 0 fails, retried, not a trap; 3: out of attempts.
        #expect(settlements == ["ack 0", "term 1", "nak 2", "term 3"])
        #expect(Set(handled.values) == [1, 2, 3])
        var iterator = letters.makeAsyncIterator()
        var byReason: [String: NATSDeadLetter] = [:]
        for _ in 0..<2 {
            if let letter = await iterator.next() { byReason[letter.reason] = letter }
        }
        let undecodable = byReason.first { $0.key.contains("undecodable headers") }?.value
        #expect(undecodable?.rawHeaders.map { String(buffer: $0) } == block)
        #expect(undecodable.map { String(buffer: $0.payload) } == "raw")
        let published = transport.log.withLockedValue { $0.published }
        #expect(published.count == 2)
        for copy in published {
            let error = copy.headers[NATSHeaderName.error] ?? ""
            #expect(!error.contains("\r") && !error.contains("\n"))
        }
        #expect(published.contains { ($0.headers[NATSHeaderName.error] ?? "").contains("line one  PUB injected 5") })
        bridge.shutdown()
        try await running.value
    }

    /// A transport whose consumers are lost as soon as they are opened (a server that answers
    /// every fetch `409 Consumer Deleted`); it records when each was opened.
    final class LosingTransport: EventTransport {
        let opens = NIOLockedValueBox<[ContinuousClock.Instant]>([])

        func start() async throws {}
        func stop() async {}
        func publish(
            subject: String, headers: NATSHeaders, body: ByteBuffer,
            completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
        ) throws {
            completion(.success(false))
        }

        func openConsumer(subject: String, group: String?) async throws -> any TransportConsumer {
            opens.withLockedValue { $0.append(.now) }
            return Lost()
        }

        final class Lost: TransportConsumer {
            func fetch(batch: Int, expires: Duration) async throws {}
            func nextDeliveries() async -> [any TransportDelivery] { [] }
            var isLost: Bool { true }
            var accepted: Int { 0 }
            func finish() {}
        }
    }

    @Test(
        "X4: a consumer lost at every fetch (409 Consumer Deleted each time) is opened again with a back-off, 100 ms doubling"
    )
    func lostConsumersAreReopenedWithBackOff() async throws {
        let transport = LosingTransport()
        let bridge = NATSBridge(
            bus: EventBus(), events: try registry(), configuration: NATSBridgeConfiguration(), transport: transport,
            logger: quietLogger)
        try bridge.listen(OrderPlaced.self, mode: .group("g")) { _, _ in }
        let running = Task { try await bridge.run() }
        try await bridge.waitUntilRunning()
        #expect(await poll(timeout: .seconds(60)) { transport.opens.withLockedValue { $0.count } >= 4 })
        let opens = transport.opens.withLockedValue { $0 }
        // At least 100 + 200 + 400 ms between the first open and the fourth.
        if opens.count >= 4 {
            #expect(opens[3] - opens[0] >= .milliseconds(700), "\(opens[3] - opens[0])")
        }
        bridge.shutdown()
        try await running.value
    }

    @Test(
        "X4: a shutdown during the wait before a lost consumer is opened again does not wait it out; waits of Int64.max seconds do not trap"
    )
    func shutdownCutsTheReopenWaitShort() async throws {
        let transport = LosingTransport()
        var configuration = NATSBridgeConfiguration()
        // `Task.sleep` traps on a deadline beyond Int64.max nanoseconds: the importer's waits
        // (here the reopen wait, and the ack wait's in-progress ticks) are kept within it.
        configuration.consumers.reopenDelay = .seconds(Int64.max)
        configuration.consumers.maxReopenDelay = .seconds(Int64.max)
        configuration.consumers.ackWait = .seconds(Int64.max)
        let bridge = NATSBridge(
            bus: EventBus(), events: try registry(), configuration: configuration, transport: transport,
            logger: quietLogger)
        try bridge.listen(OrderPlaced.self, mode: .group("g")) { _, _ in }
        let running = Task { try await bridge.run() }
        try await bridge.waitUntilRunning()
        // The first consumer is lost at once: the importer waits 292 years before the next open.
        #expect(await poll(timeout: .seconds(60)) { transport.opens.withLockedValue { $0.count } >= 1 })
        bridge.shutdown()
        try await running.value
        // The suite's time limit (2 minutes) fails the test if run() waited it out.
        #expect(transport.opens.withLockedValue { $0.count } == 1)
    }

    @Test("the wait before reopening: the first delay, doubled per loss in a row, at most the largest")
    func reopenDelays() {
        var consumers = NATSBridgeConfiguration.Consumers()
        let defaults = (1...7).map { consumers.reopenDelay(afterLosses: $0) }
        #expect(
            defaults == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1_600),
                .seconds(2), .seconds(2),
            ])
        #expect(consumers.reopenDelay(afterLosses: .max) == .seconds(2))
        #expect(consumers.reopenDelay(afterLosses: 0) == .milliseconds(100))
        consumers.reopenDelay = .seconds(3)
        consumers.maxReopenDelay = .seconds(10)
        #expect(
            (1...4).map { consumers.reopenDelay(afterLosses: $0) } == [
                .seconds(3), .seconds(6), .seconds(10), .seconds(10),
            ])
    }
}
