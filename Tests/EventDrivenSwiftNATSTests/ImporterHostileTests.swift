// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
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
        #expect(await poll(timeout: .seconds(10)) { transport.log.withLockedValue { $0.settlements.count } == 4 })
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
}
