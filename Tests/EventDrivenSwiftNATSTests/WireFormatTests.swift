// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// The wire format, checked with hand-written protocol on a raw socket (SPEC X2).
extension NATSServerTests {
    /// A bridge on its own bus, running; stopped by the caller with `shutdown()`.
    func runningBridge(
        _ server: NATSServerProcess, configure: (NATSBridge) throws -> Void
    ) async throws -> (NATSBridge, EventBus, Task<Void, any Error>) {
        let bus = EventBus(label: "wire")
        let bridge = try NATSBridge(bus: bus, events: try registry(), server: server.url, logger: quietLogger)
        try configure(bridge)
        let running = Task { try await bridge.run() }
        try await bridge.waitUntilRunning()
        return (bridge, bus, running)
    }

    @Test("X2: what we publish is read by a raw subscriber: subject, headers, JSON body, stream settings")
    func rawSubscriberReadsOurMessages() async throws {
        try await withNATSServer { server in
            let raw = try RawNATSSocket(port: server.port)
            #expect(await raw.handshake())
            raw.send("SUB eds.> 1\r\nPING\r\n")
            _ = await raw.read(until: .seconds(5)) { $0.contains("PONG") }
            let (bridge, bus, running) = try await runningBridge(server) { try $0.export(OrderPlaced.self) }
            NATSTraceContext.$traceparent.withValue("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01") {
                bus.queue(OrderPlaced(orderID: 7, customerID: 3, amount: 12.5))
            }
            let text = await raw.read(until: .seconds(10)) { $0.contains("\"orderID\":7") }
            #expect(text.contains("HMSG eds.orders.placed 1 "))
            let id = text.components(separatedBy: "Nats-Msg-Id: ").dropFirst().first?.prefix(36) ?? ""
            #expect(UUID(uuidString: String(id)) != nil, "Nats-Msg-Id is a UUID: \(id)")
            #expect(text.contains("Eds-Event: orders.placed\r\n"))
            #expect(text.contains("Eds-Event-Version: 1\r\n"))
            #expect(text.contains("Eds-Source: "))
            #expect(text.contains("traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\r\n"))
            let body = text.components(separatedBy: "\r\n\r\n").last?.components(separatedBy: "\r\n").first ?? ""
            let decoded = try JSONDecoder().decode(OrderPlaced.self, from: Data(body.utf8))
            #expect(decoded == OrderPlaced(orderID: 7, customerID: 3, amount: 12.5))

            raw.send("SUB _INBOX.raw 2\r\nPUB $JS.API.STREAM.INFO.EDS _INBOX.raw 0\r\n\r\n")
            let info = await raw.read(until: .seconds(5)) { $0.contains("duplicate_window") }
            #expect(info.contains("\"subjects\":[\"eds.>\"]") || info.contains("\"subjects\":[\"eds.\\u003e\"]"))
            #expect(info.contains("\"storage\":\"file\""))
            #expect(info.contains("\"duplicate_window\":120000000000"))
            await bridge.waitForExports()
            #expect(bridge.statistics.acknowledged == 1)
            bridge.shutdown()
            try await running.value
        }
    }

    @Test("X2: a raw publish, with our headers or with none, is handled; an imported event is not exported again")
    func rawPublishIsHandled() async throws {
        try await withNATSServer { server in
            let handled = Collected<(OrderPlaced, String)>()
            let local = Collected<OrderPlaced>()
            let (bridge, bus, running) = try await runningBridge(server) { bridge in
                try bridge.export(OrderPlaced.self)
                try bridge.importEvents(OrderPlaced.self, mode: .broadcast)
                try bridge.listen(OrderPlaced.self, mode: .group("workers")) { @Sendable order, delivery in
                    handled.append((order, delivery.messageID))
                }
            }
            bus.listen(OrderPlaced.self, executeOn: .taskThread) { @Sendable order, _ in local.append(order) }
            let raw = try RawNATSSocket(port: server.port)
            #expect(await raw.handshake())
            raw.send(
                rawPublish(
                    "eds.orders.placed",
                    headers: ["Nats-Msg-Id: raw-1", "Eds-Event: orders.placed", "Eds-Event-Version: 1"],
                    body: "{\"orderID\":1,\"customerID\":2,\"amount\":3.5}"))
            let plain = "{\"orderID\":2,\"customerID\":2,\"amount\":1}"
            raw.send("PUB eds.orders.placed \(plain.utf8.count)\r\n\(plain)\r\n")
            #expect(await poll(timeout: .seconds(60)) { handled.values.count == 2 && local.values.count == 2 })
            #expect(handled.values.map(\.0.orderID).sorted() == [1, 2])
            #expect(handled.values.first { $0.0.orderID == 1 }?.1 == "raw-1")
            await bus.drain()
            #expect(bridge.statistics.exported == 0, "imported events were exported again")
            bridge.shutdown()
            try await running.value
        }
    }
}

@Suite("X1: the NATS bridge without a server")
struct NATSBridgeRegistrationTests {
    @Test("X2: an unregistered type is a clear error at registration; bad names and duplicates are refused")
    func registration() throws {
        let events = try registry()
        let bridge = try NATSBridge(bus: EventBus(), events: events, server: "nats://127.0.0.1:1", logger: quietLogger)
        #expect(throws: NATSBridgeError.unregisteredEventType(String(reflecting: NotRegistered.self))) {
            try bridge.export(NotRegistered.self)
        }
        #expect(throws: NATSBridgeError.self) {
            try bridge.listen(NotRegistered.self, mode: .broadcast) { _, _ in }
        }
        #expect(throws: NATSBridgeError.invalidEventName("orders.*")) {
            try events.register(NotRegistered.self, name: "orders.*")
        }
        #expect(throws: NATSBridgeError.self) { try events.register(NotRegistered.self, name: "orders.placed") }
        #expect("\(NATSBridgeError.unregisteredEventType("X"))".contains("register it with a name and version"))
    }
}
