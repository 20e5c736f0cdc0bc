// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// Stream and consumer settings for real deployments, pull requests that notice a lost server,
/// the JetStream domain (SPEC X3, issue 28 §2).
extension NATSServerTests {
    struct StreamInfo: Decodable {
        struct Config: Decodable {
            var maxAge: Int64
            var maxBytes: Int64
            var replicas: Int
            enum CodingKeys: String, CodingKey {
                case maxAge = "max_age"
                case maxBytes = "max_bytes"
                case replicas = "num_replicas"
            }
        }
        struct State: Decodable { var messages: Int }
        var config: Config
        var state: State
    }

    struct ConsumerSettings: Decodable {
        struct Config: Decodable {
            var ackWait: Int64
            var maxDeliver: Int
            enum CodingKeys: String, CodingKey {
                case ackWait = "ack_wait"
                case maxDeliver = "max_deliver"
            }
        }
        var config: Config
    }

    func streamInfo(_ client: NATSClient, _ name: String) async throws -> StreamInfo {
        let reply = try await client.request(ByteBuffer(), to: "$JS.API.STREAM.INFO.\(name)")
        return try JSONDecoder().decode(StreamInfo.self, from: Data(reply.bytes))
    }

    func startAndStop(_ server: NATSServerProcess, _ configuration: NATSBridgeConfiguration, group: String? = nil)
        async throws
    {
        let bridge = try NATSBridge(
            bus: EventBus(), events: try registry(), server: server.url, configuration: configuration,
            logger: quietLogger)
        if let group { try bridge.listen(OrderPlaced.self, mode: .group(group)) { _, _ in } }
        let running = Task { try await bridge.run() }
        try await bridge.waitUntilRunning()
        bridge.shutdown()
        try await running.value
    }

    @Test("X3: the stream's max_age and max_bytes are set, and changed ones applied; consumer settings too")
    func streamAndConsumerSettings() async throws {
        try await withNATSServer { server in
            var configuration = NATSBridgeConfiguration()
            configuration.maxAge = .seconds(3_600)
            configuration.maxBytes = 10_000_000
            try await startAndStop(server, configuration, group: "settings")
            let observer = try await connectedClient(server)
            var info = try await streamInfo(observer, "EDS")
            #expect(info.config.maxAge == 3_600_000_000_000 && info.config.maxBytes == 10_000_000)
            #expect(info.config.replicas == 1)
            configuration.maxAge = .seconds(7_200)
            configuration.consumers.ackWait = .seconds(10)
            configuration.consumers.maxDeliver = 7
            try await startAndStop(server, configuration, group: "settings")
            info = try await streamInfo(observer, "EDS")
            #expect(info.config.maxAge == 7_200_000_000_000)
            let reply = try await observer.request(
                ByteBuffer(), to: "$JS.API.CONSUMER.INFO.EDS.settings_eds_orders_placed")
            let consumer = try JSONDecoder().decode(ConsumerSettings.self, from: Data(reply.bytes))
            #expect(consumer.config.ackWait == 10_000_000_000 && consumer.config.maxDeliver == 7)
            await observer.close()
        }
    }

    @Test("X3: dead letters in a stream of their own, kept apart from the events")
    func deadLetterStream() async throws {
        try await withNATSServer { server in
            var configuration = NATSBridgeConfiguration()
            configuration.deadLetterStream = .init()
            configuration.consumers.maxDeliver = 1
            let bridge = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            try bridge.listen(OrderPlaced.self, mode: .group("dead")) { _, _ in throw CancellationError() }
            let letters = bridge.deadLetters()
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            try await bridge.publishAndWait(OrderPlaced(orderID: 1, customerID: 1, amount: 1))
            var iterator = letters.makeAsyncIterator()
            #expect(await iterator.next() != nil)
            let observer = try await connectedClient(server)
            #expect(try await streamInfo(observer, "EDS_DEADLETTER").state.messages == 1)
            #expect(try await streamInfo(observer, "EDS").state.messages == 1)
            bridge.shutdown()
            try await running.value
            // Dead-letter subjects inside the events' stream are refused at start.
            configuration.deadLetterStream?.subjectPrefix = "eds.dead"
            await #expect(throws: NATSBridgeError.self) { try await startAndStop(server, configuration) }
            await observer.close()
        }
    }

    @Test("X3: the JetStream domain, or an API prefix, is configurable at the bridge")
    func jetStreamDomain() async throws {
        let config = try temporaryFile("domain.conf", "jetstream { domain: hub }\n")
        try await withNATSServer(arguments: ["-c", config]) { server in
            var configuration = NATSBridgeConfiguration()
            configuration.jetStreamDomain = "hub"
            #expect(configuration.apiPrefix == "$JS.hub.API")
            let bridge = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            try await bridge.publishAndWait(OrderPlaced(orderID: 1, customerID: 1, amount: 1))
            bridge.shutdown()
            try await running.value
            configuration.jetStreamDomain = "elsewhere"
            await #expect(throws: (any Error).self) { try await startAndStop(server, configuration) }
            // An API prefix given as such wins over the domain.
            configuration.jetStreamAPIPrefix = "$JS.hub.API"
            #expect(configuration.apiPrefix == "$JS.hub.API")
            try await startAndStop(server, configuration, group: "prefixed")
            configuration.jetStreamAPIPrefix = "$JS.elsewhere.API"
            configuration.jetStreamDomain = "hub"
            await #expect(throws: (any Error).self) { try await startAndStop(server, configuration) }
        }
    }
}

/// A pull request whose server goes silent, and one the server keeps refusing.
@Suite("NATS pull requests", .serialized, .timeLimit(.minutes(2)))
struct PullRequestTests {
    @Test("X3: a pull request asks for idle heartbeats; two missed end it as lost, long before it expires")
    func missedHeartbeats() async throws {
        let server = try await ScriptedNATSServer()
        defer { Task { await server.shutdown() } }
        let (client, subscription) = try await pullSubscription(scriptedBy: server)
        let started = ContinuousClock.now
        try await subscription.fetch(batch: 10, expires: .seconds(8))
        let elapsed = ContinuousClock.now - started
        // Before the fetch's expiry (8 s), after which it would have ended by its own timer.
        #expect(elapsed < .seconds(8), "\(elapsed)")
        #expect(subscription.missedHeartbeats == 1)
        #expect(server.lines(of: 1).contains { $0.contains("\"idle_heartbeat\":2000000000") })
        subscription.finish()
        await client.close()
    }

    @Test("X3: a fetch the server refuses (409) is asked again after a growing wait, not in a tight loop")
    func conflictBackoff() async throws {
        let sids = NIOLockedValueBox<[String: String]>([:])
        let server = try await ScriptedNATSServer(answer: { line, _ in
            let words = line.split(separator: " ").map(String.init)
            if line == "PING" { return "PONG\r\n" }
            if words.first == "SUB", words.count >= 3 { sids.withLockedValue { $0[words[1]] = words.last! } }
            if words.first == "PUB", words.count == 4, words[1].contains("MSG.NEXT"),
                let sid = sids.withLockedValue({ $0[words[2]] })
            {
                let block = "NATS/1.0 409 Exceeded MaxWaiting\r\n\r\n"
                return "HMSG \(words[2]) \(sid) \(block.utf8.count) \(block.utf8.count)\r\n\(block)\r\n"
            }
            return nil
        })
        defer { Task { await server.shutdown() } }
        let (client, subscription) = try await pullSubscription(scriptedBy: server)
        try await client.flush()
        let deadline = ContinuousClock.now + .milliseconds(1_600)
        var fetches = 0
        while ContinuousClock.now < deadline {
            try await subscription.fetch(batch: 10, expires: .seconds(5))
            fetches += 1
        }
        let requests = server.lines(of: 1).filter { $0.contains("MSG.NEXT") }.count
        // 0 + 100 + 200 + 400 + 800 ms: five or six requests in 1.6 s.
        #expect(requests <= 7 && requests == fetches, "\(requests) requests in 1.6 s")
        subscription.finish()
        await client.close()
    }
}

extension NATSServerTests {
    @Test("X3: against a real server an idle pull request gets its heartbeats: it runs to its expiry, nothing missed")
    func heartbeatsFromARealServer() async throws {
        try await withNATSServer { server in
            let client = try await connectedClient(server)
            let subscription = try await pullSubscription(
                JetStream(client: client), stream: "IDLE", prefix: "idle", durable: "idle")
            let started = ContinuousClock.now
            // Heartbeats every second, the request lost after two seconds without one.
            try await subscription.fetch(batch: 10, expires: .seconds(4))
            let elapsed = ContinuousClock.now - started
            #expect(subscription.missedHeartbeats == 0 && elapsed >= .milliseconds(3_900), "\(elapsed)")
            subscription.finish()
            await client.close()
        }
    }
}
