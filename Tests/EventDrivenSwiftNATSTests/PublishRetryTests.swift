// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

extension NATSServerTests {
    @Test(
        "X2: an unacknowledged publish is retried with the same Nats-Msg-Id and body; one never acknowledged is reported with that id"
    )
    func unacknowledgedPublishIsRetried() async throws {
        try await withNATSServer { server in
            // No stream: a subscriber of ours stands in for JetStream. It acknowledges order 1's
            // second attempt and never answers order 2.
            let responder = try await connectedClient(server)
            let seen = Collected<NATSMessage>()
            // JSONEncoder's key order varies between encodings: bodies are told apart decoded.
            @Sendable func orderID(_ message: NATSMessage) -> Int? {
                try? JSONDecoder().decode(OrderPlaced.self, from: Data(message.payload.readableBytesView)).orderID
            }
            try responder.subscribe(to: "eds.>") { message in
                seen.append(message)
                let attempts = seen.values.filter { $0.string == message.string }.count
                if orderID(message) == 1, attempts == 2, let reply = message.replyTo {
                    try? responder.publish(ByteBuffer(string: "{\"stream\":\"EDS\",\"seq\":1}"), to: reply)
                }
            }
            try await responder.flush()
            var configuration = NATSBridgeConfiguration()
            configuration.consumers.publishTimeout = .milliseconds(300)
            configuration.consumers.publishAttempts = 3
            configuration.consumers.publishRetryWindow = .zero
            let bridge = try NATSBridge(
                bus: EventBus(label: "retry"), events: try registry(), server: server.url,
                configuration: configuration, logger: quietLogger)
            let transport = try #require(bridge.transport as? NATSJetStreamTransport)
            try await transport.client.connect()  // the bridge is not run: it would create the stream
            let reported = Collected<NATSBridgeError>()
            bridge.setErrorHandler { reported.append($0) }

            try await bridge.publishAndWait(OrderPlaced(orderID: 1, customerID: 2, amount: 3))
            let first = seen.values.filter { orderID($0) == 1 }
            #expect(first.count == 2)
            #expect(Set(first.map { $0.headers[NATSHeaderName.messageID] ?? "" }).count == 1)
            #expect(UUID(uuidString: first[0].headers[NATSHeaderName.messageID] ?? "") != nil)
            #expect(first[0].string == first[1].string && first[0].subject == "eds.orders.placed")
            #expect(first[0].headers == first[1].headers && first[0].replyTo != first[1].replyTo)
            let decoded = try JSONDecoder().decode(OrderPlaced.self, from: Data(first[0].payload.readableBytesView))
            #expect(decoded == OrderPlaced(orderID: 1, customerID: 2, amount: 3))
            #expect(
                first[0].headers.fields.map(\.name) == [
                    "Nats-Msg-Id", "Eds-Event", "Eds-Event-Version", "Eds-Source", "Content-Type", "Eds-Format",
                ])
            #expect(first[0].headers[NATSHeaderName.source] == configuration.source)
            #expect(bridge.statistics.acknowledged == 1 && bridge.statistics.publishRetries == 1)

            await #expect(throws: NATSBridgeError.self) {
                try await bridge.publishAndWait(OrderPlaced(orderID: 2, customerID: 2, amount: 3))
            }
            let second = seen.values.filter { orderID($0) == 2 }
            #expect(second.count == 3)
            let ids = Set(second.map { $0.headers[NATSHeaderName.messageID] ?? "" })
            #expect(ids.count == 1 && ids != Set(first.map { $0.headers[NATSHeaderName.messageID] ?? "" }))
            guard case .publishFailed(let messageID, let event, _) = reported.values.first else {
                Issue.record("no failed publish reported: \(reported.values)")
                return
            }
            #expect(messageID == ids.first && event == "orders.placed")
            #expect(bridge.statistics.publishFailures == 1 && bridge.statistics.publishRetries == 3)
            await bridge.waitForExports()
            await transport.client.close()
            await responder.close()
        }
    }
}

@Suite("Publishing through any transport")
struct TransportPublishTests {
    /// A transport that records what it is asked to publish and fails the first attempt of
    /// each message.
    final class FailingOnce: EventTransport {
        struct Publish: Sendable {
            var subject: String
            var headers: NATSHeaders
            var body: [UInt8]
        }
        let published = Collected<Publish>()

        func start() async throws {}
        func stop() async {}
        func publish(
            subject: String, headers: NATSHeaders, body: ByteBuffer,
            completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
        ) throws {
            published.append(Publish(subject: subject, headers: headers, body: Array(body.readableBytesView)))
            let attempts = published.values.filter { $0.headers == headers }.count
            completion(attempts == 1 ? .failure(NATSError.timeout) : .success(false))
        }
        func openConsumer(subject: String, group: String?) async throws -> any TransportConsumer {
            throw NATSError.closed
        }
    }

    @Test("X2: through another transport, a failed publish is retried with the same headers and body")
    func retriedThroughAnyTransport() async throws {
        let transport = FailingOnce()
        let bridge = NATSBridge(bus: EventBus(label: "any"), events: try registry(), transport: transport)
        let order = OrderPlaced(orderID: 5, customerID: 6, amount: 7.25)
        try await NATSTraceContext.$traceparent.withValue("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01") {
            try await bridge.publishAndWait(order)
        }
        let attempts = transport.published.values
        #expect(attempts.count == 2)
        #expect(attempts[0].headers == attempts[1].headers && attempts[0].body == attempts[1].body)
        #expect(attempts[0].subject == "eds.orders.placed")
        #expect(try JSONDecoder().decode(OrderPlaced.self, from: Data(attempts[0].body)) == order)
        #expect(
            attempts[0].headers.fields.map(\.name) == [
                "Nats-Msg-Id", "Eds-Event", "Eds-Event-Version", "Eds-Source", "Content-Type", "Eds-Format",
                "traceparent",
            ])
        #expect(bridge.statistics.acknowledged == 1 && bridge.statistics.publishRetries == 1)
    }
}

extension NATSServerTests {
    @Test("X3: a publish answered 'no responders' (a stream electing its leader) is retried until acknowledged")
    func publishOutlastsAnElection() async throws {
        try await withNATSServer { server in
            var configuration = NATSBridgeConfiguration()
            configuration.consumers.publishTimeout = .milliseconds(500)
            let bridge = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            let transport = try #require(bridge.transport as? NATSJetStreamTransport)
            try await transport.client.connect()  // not run: no stream, so nobody answers for now
            let publishing = Task { try await bridge.publishAndWait(OrderPlaced(orderID: 1, customerID: 1, amount: 1)) }
            // More attempts than publishAttempts fail before anyone answers.
            #expect(await poll(timeout: .seconds(60)) { bridge.statistics.publishRetries >= 6 })
            let responder = try await connectedClient(server)
            try responder.subscribe(to: "eds.>") { message in
                try? responder.publish(ByteBuffer(string: "{\"stream\":\"EDS\",\"seq\":1}"), to: message.replyTo!)
            }
            try await responder.flush()
            try await publishing.value
            #expect(bridge.statistics.acknowledged == 1 && bridge.statistics.publishFailures == 0)
            await transport.client.close()
            await responder.close()
        }
    }
}
