// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// Several servers (SPEC X3, issue 28 §2): a shuffled list extended by `connect_urls`,
/// lame-duck mode, jittered backoff, millisecond timeouts.
@Suite("NATS failover", .serialized, .timeLimit(.minutes(2)))
struct FailoverTests {
    static func info(_ extra: String = "") -> String {
        "INFO {\"server_id\":\"scripted\",\"version\":\"2.9.0\",\"proto\":1,\"headers\":true,\"max_payload\":1048576\(extra)}\r\n"
    }

    @Test("X3: a server's connect_urls join the pool: when it goes, the client reaches the one it announced")
    func connectURLs() async throws {
        let second = try await ScriptedNATSServer()
        defer { Task { await second.shutdown() } }
        let first = try await ScriptedNATSServer(greeting: { _ in
            Self.info(",\"connect_urls\":[\"127.0.0.1:\(second.port)\"]")
        })
        var configuration = try NATSClientConfiguration(server: first.url)
        configuration.reconnect.initialDelay = .milliseconds(5)
        let client = NATSClient(configuration: configuration, logger: quietLogger)
        try await client.connect()
        #expect(second.connectionCount == 0)
        await first.shutdown()
        #expect(await poll(timeout: .seconds(60)) { client.statistics.connects == 2 && second.connectionCount == 1 })
        try await client.flush()
        await client.close()
    }

    @Test("X3: a server in lame-duck mode is left for another at once")
    func lameDuck() async throws {
        let first = try await ScriptedNATSServer()
        defer { Task { await first.shutdown() } }
        let second = try await ScriptedNATSServer()
        defer { Task { await second.shutdown() } }
        var configuration = try NATSClientConfiguration(server: "\(first.url),\(second.url)")
        configuration.randomizeServers = false
        let client = NATSClient(configuration: configuration, logger: quietLogger)
        try await client.connect()
        #expect(first.connectionCount == 1 && second.connectionCount == 0)
        first.send(Self.info(",\"ldm\":true"), on: 1)
        #expect(await poll(timeout: .seconds(60)) { second.connectionCount == 1 && client.statistics.connects == 2 })
        #expect(await poll(timeout: .seconds(60)) { first.isClosed(1) })
        #expect(client.statistics.lameDuckMoves == 1)
        try await client.flush()
        #expect(first.connectionCount == 1, "went back to the server that is going")
        await client.close()
    }

    @Test("X3: `--server a,b,c` parses into a list; after a lost connection its server is tried last")
    func serverList() throws {
        let urls = (1...3).map { "nats://127.0.0.1:\(4_220 + $0)" }.joined(separator: ",")
        let configuration = try NATSClientConfiguration(server: urls)
        #expect(configuration.servers.count == 3)
        #expect(
            try NATSClientConfiguration(server: "a:4222, b:4223").servers.map(\.absoluteString) == [
                "nats://a:4222", "nats://b:4223",
            ])
        var state = _ClientState()
        state.servers = configuration.servers
        state.currentServer = configuration.servers[1]
        #expect(state.serversToTry() == [configuration.servers[2], configuration.servers[0], configuration.servers[1]])
    }

    @Test("X3: the client shuffles its list on connect")
    func connectShuffles() async throws {
        var servers: [ScriptedNATSServer] = []
        for _ in 0..<4 { servers.append(try await ScriptedNATSServer()) }
        let list = servers.map(\.url).joined(separator: ",")
        for _ in 0..<12 {
            let client = NATSClient(configuration: try NATSClientConfiguration(server: list), logger: quietLogger)
            try await client.connect()
            await client.close()
        }
        // Twelve clients given one list did not all go to its first server.
        #expect(servers.filter { $0.connectionCount > 0 }.count > 1, "\(servers.map(\.connectionCount))")
        for server in servers { await server.shutdown() }
    }

    @Test("X3: reconnection waits are jittered between half the delay and the delay")
    func jitter() {
        let policy = NATSClientConfiguration.Reconnect()
        let waits = (0..<100).map { _ in policy.jittered(.milliseconds(1_000)) }
        #expect(waits.allSatisfy { $0 >= .milliseconds(500) && $0 <= .milliseconds(1_000) })
        #expect(Set(waits).count > 10)
    }

    @Test("X3: timeouts count milliseconds: 500 ms to connect is 500 ms, not zero")
    func millisecondTimeouts() async throws {
        // A server that never greets: the attempt ends after about 500 ms (a timeout read as whole
        // seconds would end it at once). No connect to a greeting server with that timeout: on a
        // loaded machine its handshake took longer than 500 ms once, in CI.
        let silent = try await ScriptedNATSServer(greeting: { _ in "" })
        defer { Task { await silent.shutdown() } }
        var silentConfiguration = try NATSClientConfiguration(server: silent.url)
        silentConfiguration.connectTimeout = .milliseconds(500)
        let waiting = NATSClient(configuration: silentConfiguration, logger: quietLogger)
        let started = ContinuousClock.now
        await #expect(throws: NATSError.self) { try await waiting.connect() }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(400) && elapsed < .seconds(30), "\(elapsed)")
    }
}

extension NATSServerTests {
    @Test("X3: NATSBridgeDemo takes `--server a,b,c`: a server that is down is passed over for one that is up")
    func demoTakesAServerList() async throws {
        try await withNATSServer { server in
            let producer = try ChildProcess(
                demoExecutable,
                ["produce", "--server", "nats://127.0.0.1:1,\(server.url),nats://127.0.0.1:2", "--count", "20"])
            #expect(await producer.waitForExit(timeout: .seconds(60)) == 0, "\(producer.stderr)")
            await producer.waitForStdout(timeout: .seconds(10)) { lines in
                lines.contains { $0.hasPrefix("{\"produced\"") }
            }
            #expect(producer.demoLines.last { $0.produced != nil }?.acknowledged == 20)
        }
    }
}
