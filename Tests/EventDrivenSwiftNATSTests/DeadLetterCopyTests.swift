// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// What the importer's dead-letter copy carries, when it counts as dead-lettered, and how much a
/// reader of ``NATSBridge/deadLetters()`` that does not read can make the bridge hold.
@Suite("NATS dead-letter copies", .timeLimit(.minutes(2)))
struct DeadLetterCopyTests {
    /// A bridge over `transport` that dead-letters a message on its first failure.
    private func bridge(_ transport: ScriptedTransport, publishAttempts: Int = 4) throws -> NATSBridge {
        var configuration = NATSBridgeConfiguration()
        configuration.consumers.maxDeliver = 1
        configuration.consumers.publishAttempts = publishAttempts
        return NATSBridge(
            bus: EventBus(), events: try registry(), configuration: configuration, transport: transport,
            logger: quietLogger)
    }

    /// Every letter `letters` yields until the bridge stops.
    private func drain(_ letters: AsyncStream<NATSDeadLetter>) async -> [NATSDeadLetter] {
        var all: [NATSDeadLetter] = []
        for await letter in letters { all.append(letter) }
        return all
    }

    @Test(
        "X4: header names the parser accepts but the encoder refuses are left out of the dead letter (named in Eds-Dropped-Headers): the copy is stored and the original terminated"
    )
    func unwritableHeaderNames() async throws {
        // What the parser hands on from the network: a name with a space, one with a non-ASCII byte.
        let headers = try NATSProtocolParser.parseHeaders(
            ByteBuffer(
                string: "NATS/1.0\r\nEds-Event: orders.placed\r\nbad name: 1\r\nna\u{EF}ve: 2\r\nKeep: 3\r\n\r\n"))
        #expect(headers["bad name"] == "1")
        let transport = ScriptedTransport([.init(headers: headers, body: "not json")])
        let bridge = try bridge(transport)
        try bridge.listen(OrderPlaced.self, mode: .group("g")) { _, _ in }
        let running = Task { try await bridge.run() }
        try await bridge.waitUntilRunning()
        #expect(await poll(timeout: .seconds(60)) { !transport.log.withLockedValue { $0.settlements.isEmpty } })
        let (settlements, published) = transport.log.withLockedValue { ($0.settlements, $0.published) }
        #expect(settlements == ["term 0"])
        #expect(published.count == 1)
        let copy = published.first?.headers ?? NATSHeaders()
        #expect(copy["Keep"] == "3")
        #expect(copy["bad name"] == nil)
        #expect(copy.map(\.name).allSatisfy { name in name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } })
        #expect(copy[NATSHeaderName.droppedHeaders] == "bad%20name,na%C3%AFve")
        #expect(bridge.statistics.deadLettered == 1)
        bridge.shutdown()
        try await running.value
    }

    @Test(
        "X2: a dead-letter copy never stored is not dead-lettered: the original is sent back, counted in settleFailures only, and no letter is posted"
    )
    func unstoredCopyIsNotADeadLetter() async throws {
        let transport = ScriptedTransport([.init(body: "not json")], failingPublishes: 10)
        let bridge = try bridge(transport, publishAttempts: 2)
        let reports = Collected<String>()
        bridge.setErrorHandler { reports.append("\($0)") }
        let letters = bridge.deadLetters()
        try bridge.listen(OrderPlaced.self, mode: .group("g")) { _, _ in }
        let running = Task { try await bridge.run() }
        try await bridge.waitUntilRunning()
        #expect(await poll(timeout: .seconds(60)) { !transport.log.withLockedValue { $0.settlements.isEmpty } })
        #expect(transport.log.withLockedValue { $0.settlements } == ["nak 0"])
        #expect(bridge.statistics.deadLettered == 0)
        #expect(bridge.statistics.settleFailures == 1)
        bridge.shutdown()
        try await running.value
        #expect(await drain(letters).isEmpty)
        #expect(reports.values.isEmpty, "\(reports.values)")
    }

    @Test(
        "X2: a message without Nats-Msg-Id is dead-lettered as deadletter-<stream>:<sequence>, the same id every time (the stream drops a repeat)"
    )
    func stableDeadLetterID() async throws {
        let noID = NATSHeaders([("Eds-Event", "orders.placed")])
        let withID = NATSHeaders([("Eds-Event", "orders.placed"), (NATSHeaderName.messageID, "abc")])
        let transport = ScriptedTransport([
            .init(headers: noID, body: "not json", stableID: "EDS:7"),
            .init(headers: noID, body: "not json", deliveryCount: 2, stableID: "EDS:7"),
            .init(headers: withID, body: "not json", stableID: "EDS:8"),
        ])
        let bridge = try bridge(transport)
        try bridge.listen(OrderPlaced.self, mode: .group("g")) { _, _ in }
        let running = Task { try await bridge.run() }
        try await bridge.waitUntilRunning()
        #expect(await poll(timeout: .seconds(60)) { transport.log.withLockedValue { $0.settlements.count } == 3 })
        let ids = transport.log.withLockedValue { $0.published.map { $0.headers[NATSHeaderName.messageID] ?? "" } }
        #expect(ids.sorted() == ["deadletter-EDS:7", "deadletter-EDS:7", "deadletter-abc"])
        bridge.shutdown()
        try await running.value
    }

    @Test(
        "X4: deadLetters(limit:) holds at most its limit for a reader that does not read; the rest is dropped and counted"
    )
    func boundedDeadLetters() async throws {
        let count = 40
        let transport = ScriptedTransport(Array(repeating: .init(body: "not json"), count: count))
        let bridge = try bridge(transport)
        let unread = bridge.deadLetters(limit: 4)
        let everything = bridge.deadLetters()
        try bridge.listen(OrderPlaced.self, mode: .group("g")) { _, _ in }
        let running = Task { try await bridge.run() }
        try await bridge.waitUntilRunning()
        #expect(await poll(timeout: .seconds(60)) { transport.log.withLockedValue { $0.settlements.count } == count })
        #expect(bridge.statistics.deadLettered == count)
        #expect(bridge.statistics.deadLettersDropped == count - 4)
        bridge.shutdown()
        try await running.value
        #expect(await drain(unread).count == 4)
        // The default limit (1,024) holds all of them.
        #expect(await drain(everything).count == count)
        #expect(NATSBridge.defaultDeadLetterLimit == 1_024)
    }
}
