// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// Publishes that can never succeed fail at once, with a typed error, instead of after the
/// publish retry window (30 s by default): one larger than the server's `max_payload` (before,
/// the server closed the connection at every attempt), and one on a bridge that was never run
/// or has stopped (before, retried against a client not connected, or closed).
@Suite("X6: publishes that cannot succeed fail at once", .serialized, .timeLimit(.minutes(2)))
struct FailFastPublishTests {
    static let bigText = String(repeating: "x", count: 40_000)

    struct Note: Eventable, Codable, Equatable {
        var id: Int
        var text: String
    }

    static func events() throws -> NATSEventRegistry {
        let events = NATSEventRegistry()
        try events.register(Note.self, name: "notes.written", version: 1)
        return events
    }

    @Test("a message over the server's max_payload is refused by the client before it is written")
    func clientRefusesOversizedMessage() async throws {
        let config = try temporaryFile("max-payload.conf", "max_payload: 16384\n")
        try await withNATSServer(arguments: ["-c", config], jetStream: false) { server in
            let client = try await connectedClient(server)
            #expect(client.serverInfo?.maxPayload == 16_384)
            let big = ByteBuffer(repeating: UInt8(ascii: "x"), count: 16_385)
            #expect(throws: NATSError.payloadTooLarge(size: 16_385, limit: 16_384)) {
                try client.publish(big, to: "big")
            }
            var headers = NATSHeaders()
            headers.append("A", "b")
            let exact = ByteBuffer(repeating: UInt8(ascii: "x"), count: 16_384)
            // With headers, the header block counts too (the server counts both).
            #expect(throws: NATSError.payloadTooLarge(size: 16_384 + 18, limit: 16_384)) {
                try client.publish(exact, to: "big", headers: headers)
            }
            let refused = await outcome(within: .seconds(10)) {
                _ = try await client.request(big, to: "big", timeout: .seconds(1))
            }
            #expect(refused.error as? NATSError == .payloadTooLarge(size: 16_385, limit: 16_384), "\(refused)")
            try client.publish(exact, to: "exact")  // at the limit: taken
            try await client.flush()
            #expect(client.statistics.disconnects == 0 && client.isConnected)
            await client.close()
        }
    }

    @Test("an event over max_payload fails publishAndWait at once with publishFailed; the connection stays")
    func oversizedEventFailsAtOnce() async throws {
        let config = try temporaryFile("max-payload.conf", "max_payload: 16384\n")
        try await withNATSServer(arguments: ["-c", config]) { server in
            var configuration = NATSBridgeConfiguration()
            configuration.storage = .memory
            let bridge = try NATSBridge(
                bus: EventBus(label: "big"), events: try Self.events(), server: server.url,
                configuration: configuration, logger: quietLogger)
            let reported = Collected<NATSBridgeError>()
            bridge.setErrorHandler { reported.append($0) }
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            let client = try #require((bridge.transport as? NATSJetStreamTransport)?.client)
            let published = await outcome(within: .seconds(10)) {
                try await bridge.publishAndWait(Note(id: 1, text: Self.bigText))
            }
            guard case .publishFailed(_, let event, let reason) = published.error as? NATSBridgeError else {
                Issue.record("an oversized publish: \(published)")
                bridge.shutdown()
                _ = await outcome(within: .seconds(5)) { try await running.value }
                return
            }
            #expect(event == "notes.written" && reason.contains("max_payload"), "\(reason)")
            #expect(client.statistics.disconnects == 0, "\(client.statistics.disconnects) disconnects")
            let statistics = bridge.statistics
            #expect(statistics.publishFailures == 1 && statistics.publishRetries == 0, "\(statistics)")
            #expect(reported.values.count == 1)
            try await bridge.publishAndWait(Note(id: 2, text: "small"))
            #expect(bridge.statistics.acknowledged == 1)
            bridge.shutdown()
            try await running.value
        }
    }

    @Test("a publish made before run() is exported once the bridge runs, as one dispatched while a ServiceGroup starts")
    func publishBeforeRunWaitsForRun() async throws {
        try await withNATSServer { server in
            var configuration = NATSBridgeConfiguration()
            configuration.storage = .memory
            let bridge = try NATSBridge(
                bus: EventBus(label: "early"), events: try Self.events(), server: server.url,
                configuration: configuration, logger: quietLogger)
            let reported = Collected<NATSBridgeError>()
            bridge.setErrorHandler { reported.append($0) }
            try bridge.publish(Note(id: 1, text: "before run"))
            let running = Task { try await bridge.run() }
            let drained = await outcome(within: .seconds(20)) { await bridge.waitForExports() }
            #expect("\(drained)" == "returned", "waitForExports \(drained)")
            #expect(bridge.statistics.exported == 1 && bridge.statistics.publishFailures == 0, "\(bridge.statistics)")
            #expect(reported.values.isEmpty)
            bridge.shutdown()
            try await running.value
        }
    }

    @Test("publishAndWait on a bridge that has stopped fails at once with notRunning")
    func publishAfterStopFailsAtOnce() async throws {
        try await withNATSServer { server in
            var configuration = NATSBridgeConfiguration()
            configuration.storage = .memory
            let bridge = try NATSBridge(
                bus: EventBus(label: "stopped"), events: try Self.events(), server: server.url,
                configuration: configuration, logger: quietLogger)
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            try await bridge.publishAndWait(Note(id: 1, text: "a"))
            bridge.shutdown()
            try await running.value
            let published = await outcome(within: .seconds(10)) {
                try await bridge.publishAndWait(Note(id: 2, text: "b"))
            }
            #expect(published.error as? NATSBridgeError == .notRunning, "\(published)")
            #expect(bridge.statistics.publishFailures == 1 && bridge.statistics.acknowledged == 1)
        }
    }
}
