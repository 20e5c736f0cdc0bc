// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

struct Shipment: Eventable, Codable, Equatable {
    var orderID: Int
    var shippedAt: Date
}

/// Version 2 of `orders.placed` adds a currency; version 1 had none.
struct OrderPlacedV2: Eventable, Codable, Equatable {
    var orderID: Int
    var customerID: Int
    var amount: Double
    var currency: String
}

/// A wire format another language can live with (SPEC X5, issue 28 §3).
extension NATSServerTests {
    @Test("X5: dates are ISO 8601 text with fractional seconds; earlier numeric dates still decode")
    func isoDates() throws {
        let events = NATSEventRegistry()
        try events.register(Shipment.self, name: "shipments", version: 1)
        let entry = try events.entry(for: Shipment.self)
        let date = Date(timeIntervalSince1970: 1_795_000_000.25)
        let body = String(decoding: try entry.encode(Shipment(orderID: 1, shippedAt: date)), as: UTF8.self)
        #expect(body.contains("\"shippedAt\":\"2026-11-18T") && body.contains(".250Z\""), "\(body)")
        let decoded = try entry.decode(Data(body.utf8)) as? Shipment
        #expect(decoded?.shippedAt == date)
        // Another language's ISO 8601 without fractions, and what earlier versions wrote.
        let plain = try entry.decode(Data(#"{"orderID":2,"shippedAt":"2026-11-18T11:06:40Z"}"#.utf8)) as? Shipment
        #expect(plain?.shippedAt == Date(timeIntervalSince1970: 1_795_000_000))
        let old = try entry.decode(Data(#"{"orderID":3,"shippedAt":815000000}"#.utf8)) as? Shipment
        #expect(old?.shippedAt == Date(timeIntervalSinceReferenceDate: 815_000_000))
    }

    @Test("X5: a registry given coders of its own encodes and decodes with them, older versions included")
    func coders() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let events = NATSEventRegistry(encoder: encoder, decoder: decoder)
        try events.register(Shipment.self, name: "shipments", version: 2)
        struct ShipmentV1: Codable { var order: Int, shipped: Date }
        try events.registerDecoder(for: Shipment.self, version: 1, from: ShipmentV1.self) { old in
            Shipment(orderID: old.order, shippedAt: old.shipped)
        }
        let entry = try events.entry(for: Shipment.self)
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        let body = String(decoding: try entry.encode(Shipment(orderID: 1, shippedAt: date)), as: UTF8.self)
        #expect(body.contains("\"shippedAt\":1795000000"), "\(body)")
        #expect(try entry.decode(Data(body.utf8)) as? Shipment == Shipment(orderID: 1, shippedAt: date))
        // ISO 8601 text is not what these coders read.
        #expect(throws: (any Error).self) {
            try entry.decode(Data(#"{"orderID":2,"shippedAt":"2026-11-18T11:06:40Z"}"#.utf8))
        }
        // An older version is read with the registry's decoder too.
        let older = try #require(entry.olderDecoder(1))
        #expect(
            try older(Data(#"{"order":3,"shipped":1795000000}"#.utf8)) as? Shipment
                == Shipment(orderID: 3, shippedAt: date))
    }

    @Test("X5: messages carry Content-Type and the wire format's version; an unknown format is a dead letter")
    func contentTypeAndFormat() async throws {
        try await withNATSServer { server in
            let raw = try RawNATSSocket(port: server.port)
            #expect(await raw.handshake())
            raw.send("SUB eds.orders.placed 1\r\nPING\r\n")
            _ = await raw.read(until: .seconds(5)) { $0.contains("PONG") }
            var configuration = NATSBridgeConfiguration()
            configuration.consumers.maxDeliver = 1
            let bridge = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            let handled = Collected<Int>()
            try bridge.listen(OrderPlaced.self, mode: .group("format")) { order, _ in handled.append(order.orderID) }
            let letters = bridge.deadLetters()
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            try await bridge.publishAndWait(OrderPlaced(orderID: 1, customerID: 1, amount: 1))
            let text = await raw.read(until: .seconds(5)) { $0.contains("\"orderID\":1") }
            #expect(text.contains("Content-Type: application/json\r\n") && text.contains("Eds-Format: 1\r\n"))
            raw.send(
                rawPublish(
                    "eds.orders.placed", headers: ["Nats-Msg-Id: future-1", "Eds-Format: 2"],
                    body: #"{"orderID":2,"customerID":1,"amount":1}"#))
            var iterator = letters.makeAsyncIterator()
            let letter = await iterator.next()
            #expect(letter?.messageID == "future-1" && letter?.reason.contains("wire format 2") == true)
            #expect(handled.values == [1])
            bridge.shutdown()
            try await running.value
        }
    }

    @Test("X5: an event published without Nats-Msg-Id gets a stable id, the same on every delivery")
    func stableIDs() async throws {
        try await withNATSServer { server in
            let bridge = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, logger: quietLogger)
            var configuration = bridge.configuration
            configuration.consumers.retryDelays = [.milliseconds(10)]
            let retrying = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            let seen = Collected<(String, Int)>()
            try retrying.listen(OrderPlaced.self, mode: .group("ids")) { _, delivery in
                seen.append((delivery.messageID, delivery.deliveryCount))
                if delivery.deliveryCount == 1 { throw CancellationError() }
            }
            let running = Task { try await retrying.run() }
            try await retrying.waitUntilRunning()
            let raw = try RawNATSSocket(port: server.port)
            #expect(await raw.handshake())
            raw.send("PUB eds.orders.placed 39\r\n{\"orderID\":5,\"customerID\":1,\"amount\":1}\r\n")
            #expect(await poll(timeout: .seconds(60)) { seen.values.count == 2 })
            #expect(seen.values.map(\.0) == ["EDS:1", "EDS:1"] && seen.values.map(\.1) == [1, 2])
            retrying.shutdown()
            try await running.value
        }
    }

    @Test("X5: during a rolling upgrade a v2 consumer handles what a v1 publisher sends, converted")
    func rollingUpgrade() async throws {
        try await withNATSServer { server in
            let events = NATSEventRegistry()
            try events.register(OrderPlacedV2.self, name: "orders.placed", version: 2)
            try events.registerDecoder(for: OrderPlacedV2.self, version: 1, from: OrderPlaced.self) { old in
                OrderPlacedV2(orderID: old.orderID, customerID: old.customerID, amount: old.amount, currency: "EUR")
            }
            #expect(throws: NATSBridgeError.self) {
                try events.registerDecoder(for: OrderPlacedV2.self, version: 2, from: OrderPlaced.self) { _ in
                    OrderPlacedV2(orderID: 0, customerID: 0, amount: 0, currency: "")
                }
            }
            let consumer = NATSBridge(
                bus: EventBus(), events: events,
                transport: NATSJetStreamTransport(
                    client: NATSClient(
                        configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger),
                    configuration: NATSBridgeConfiguration()), logger: quietLogger)
            let handled = Collected<OrderPlacedV2>()
            try consumer.listen(OrderPlacedV2.self, mode: .group("upgrade")) { order, _ in handled.append(order) }
            let running = Task { try await consumer.run() }
            try await consumer.waitUntilRunning()
            // A publisher still on version 1, and one already on 2.
            let old = try NATSBridge(bus: EventBus(), events: try registry(), server: server.url, logger: quietLogger)
            let oldRunning = Task { try await old.run() }
            try await old.waitUntilRunning()
            try await old.publishAndWait(OrderPlaced(orderID: 1, customerID: 7, amount: 9.5))
            try await consumer.publishAndWait(OrderPlacedV2(orderID: 2, customerID: 7, amount: 1, currency: "CHF"))
            #expect(await poll(timeout: .seconds(60)) { handled.values.count == 2 })
            #expect(
                handled.values.sorted { $0.orderID < $1.orderID } == [
                    OrderPlacedV2(orderID: 1, customerID: 7, amount: 9.5, currency: "EUR"),
                    OrderPlacedV2(orderID: 2, customerID: 7, amount: 1, currency: "CHF"),
                ])
            #expect(consumer.statistics.deadLettered == 0)
            old.shutdown()
            try await oldRunning.value
            consumer.shutdown()
            try await running.value
        }
    }
}
