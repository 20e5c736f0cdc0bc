// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Testing

@testable import EventDrivenSwiftNATS

/// The client's `PING` keep-alive, against a pretend server that can leave `PING`s unanswered.
@Suite("NATS client keep-alive", .timeLimit(.minutes(1)))
struct KeepAliveTests {
    private func client(
        _ server: FakeNATSServer, interval: Duration, maximumOutstanding: Int
    ) throws -> NATSClient {
        var configuration = try NATSClientConfiguration(server: server.url)
        configuration.name = server.clientName
        configuration.pingInterval = interval
        configuration.maximumPingsOutstanding = maximumOutstanding
        configuration.reconnect.initialDelay = .milliseconds(1)
        return NATSClient(configuration: configuration, logger: quietLogger)
    }

    @Test(
        "X2: with maximumPingsOutstanding PINGs unanswered the connection is stale: closed, counted, reconnected, resubscribed"
    )
    func staleConnectionIsReplaced() async throws {
        // The first connection never answers a keep-alive PING; the second does. The interval
        // leaves the second 500 ms to answer: a loaded machine (CI runs every suite at once)
        // once held a PONG past 40 ms, and the second connection went stale too.
        let server = try await FakeNATSServer { connection in connection > 1 }
        let client = try client(server, interval: .milliseconds(250), maximumOutstanding: 2)
        try await client.connect()
        try client.subscribe(to: "orders.>") { _ in }
        // Keep-alive PINGs reach a connection only once the client has installed it (and counted it).
        let replaced = await server.wait(timeout: .seconds(20)) { connections in
            connections.count >= 2 && connections[0].isClosed && connections[1].pings >= 3
        }
        #expect(replaced, "\(server.connections)")
        let connections = server.connections
        #expect(connections.count == 2)
        #expect(connections.first?.pings == 3, "the handshake's PING, then 2 keep-alive PINGs unanswered")
        #expect(connections.last?.lines.contains { $0.hasPrefix("SUB orders.> ") } == true)
        let statistics = client.statistics
        #expect(statistics.staleConnections == 1)
        #expect(statistics.disconnects == 1)
        #expect(statistics.connects == 2)
        #expect(client.isConnected)
        await client.close()
        await server.shutdown()
    }

    @Test("X2: a server that answers keep-alive PINGs keeps the connection; flushes still get their own PONG")
    func answeredPingsKeepTheConnection() async throws {
        let server = try await FakeNATSServer { _ in true }
        // Generous margins: a PONG would have to be late by 300 ms for a false alarm.
        let client = try client(server, interval: .milliseconds(100), maximumOutstanding: 3)
        try await client.connect()
        #expect(await server.wait(timeout: .seconds(20)) { ($0.first?.pings ?? 0) >= 4 })
        try await client.flush()
        #expect(await server.wait(timeout: .seconds(20)) { ($0.first?.pings ?? 0) >= 9 })
        try await client.flush()
        #expect(server.connections.count == 1)
        #expect(server.connections.first?.isClosed == false)
        let statistics = client.statistics
        #expect(statistics.staleConnections == 0)
        #expect(statistics.disconnects == 0)
        #expect(statistics.connects == 1)
        #expect(client.isConnected)
        await client.close()
        await server.shutdown()
    }

    @Test("X2: the keep-alive's defaults: a PING every 2 minutes, stale after 2 unanswered")
    func defaults() throws {
        let configuration = try NATSClientConfiguration(server: "nats://127.0.0.1:4222")
        #expect(configuration.pingInterval == .seconds(120))
        #expect(configuration.maximumPingsOutstanding == 2)
    }
}
