// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// What a server's `connect_urls` may and may not do to the client's list of servers, and
/// secrets that hold the characters that end a URL's parts.
@Suite("NATS client hardening", .serialized, .timeLimit(.minutes(2)))
struct ClientHardeningTests {
    static func info(_ extra: String = "") -> String {
        "INFO {\"server_id\":\"scripted\",\"version\":\"2.9.0\",\"proto\":1,\"headers\":true,\"max_payload\":1048576\(extra)}\r\n"
    }

    @Test("X4: a server a cluster announces gets none of the URL credentials of the server that announced it")
    func discoveredServersGetNoURLCredentials() async throws {
        let second = try await ScriptedNATSServer()
        defer { Task { await second.shutdown() } }
        let first = try await ScriptedNATSServer(greeting: { _ in
            Self.info(",\"connect_urls\":[\"127.0.0.1:\(second.port)\",\"mallory@127.0.0.1:1\"]")
        })
        var configuration = try NATSClientConfiguration(server: "nats://alice:url-secret@127.0.0.1:\(first.port)")
        configuration.reconnect.initialDelay = .milliseconds(5)
        // Credentials that belong to no URL still go to every server whose URL has none.
        configuration.authentication = .token("shared-token")
        let client = NATSClient(configuration: configuration, logger: quietLogger)
        try await client.connect()
        let firstConnect = first.lines(of: 1).first { $0.hasPrefix("CONNECT ") } ?? ""
        #expect(firstConnect.contains("url-secret") && !firstConnect.contains("shared-token"))
        var servers = client.state.withLockedValue { $0.servers }
        #expect(servers.filter { $0.port == second.port }.count == 1, "\(servers)")
        #expect(servers.filter { $0.port != first.port }.allSatisfy { $0.user == nil && $0.password == nil })
        // An INFO after the handshake adds servers the same way.
        first.send(Self.info(",\"connect_urls\":[\"127.0.0.1:\(second.port)\",\"127.0.0.1:2\"]"), on: 1)
        #expect(await poll(timeout: .seconds(60)) { client.serverInfo?.connectURLs.last == "127.0.0.1:2" })
        servers = client.state.withLockedValue { $0.servers }
        #expect(servers.contains { $0.port == 2 }, "\(servers)")
        #expect(servers.filter { $0.port != first.port }.allSatisfy { $0.user == nil && $0.password == nil })
        await first.shutdown()
        #expect(await poll(timeout: .seconds(60)) { client.statistics.connects == 2 && second.connectionCount == 1 })
        let connect = second.lines(of: 1).first { $0.hasPrefix("CONNECT ") } ?? ""
        #expect(!connect.contains("url-secret") && !connect.contains("alice") && !connect.contains("mallory"))
        #expect(connect.contains("shared-token"), "\(connect)")
        await client.close()
    }

    @Test("X4: a server announcing new connect_urls again and again cannot grow the list of servers without bound")
    func discoveredServersAreBounded() async throws {
        let server = try await ScriptedNATSServer()
        defer { Task { await server.shutdown() } }
        let configuration = try NATSClientConfiguration(server: server.url)
        let client = NATSClient(configuration: configuration, logger: quietLogger)
        try await client.connect()
        var frames = ""
        for n in 0..<1_000 {
            let urls = (1...3).map { "\"10.\(n / 256).\(n % 256).\($0):4222\"" }.joined(separator: ",")
            frames += Self.info(",\"connect_urls\":[\(urls)]")
        }
        // One more, with far more URLs than the client takes from one INFO.
        let many = (0..<1_000).map { "\"10.200.\($0 / 256).\($0 % 256):4222\"" }.joined(separator: ",")
        frames += Self.info(",\"connect_urls\":[\(many)]")
        server.send(frames, on: 1)
        #expect(await poll(timeout: .seconds(60)) { client.serverInfo?.connectURLs.count == 1_000 })
        let servers = client.state.withLockedValue { $0.servers }
        #expect(servers.count <= 1 + _ClientState.maximumDiscoveredServers, "\(servers.count)")
        #expect(servers.contains(configuration.servers[0]))
        // The servers of the last INFO replace those of earlier ones.
        #expect(servers.contains { $0.host == "10.200.0.0" } && !servers.contains { $0.host == "10.3.231.1" })
        try await client.flush()
        await client.close()
        // Straight on the state: the configured servers always stay.
        var state = _ClientState()
        let configured = (1...3).map { URL(string: "nats://127.0.0.1:\(4_220 + $0)")! }
        state.servers = configured
        for n in 0..<1_000 {
            state.discover((1...3).map { "10.\(n / 256).\(n % 256).\($0):4222" }, from: configured[0])
        }
        #expect(state.servers.count <= configured.count + _ClientState.maximumDiscoveredServers)
        #expect(configured.allSatisfy(state.servers.contains))
    }

    @Test("X4: a password holding /, ?, #, @ or a comma never reaches an error text or a description")
    func passwordsWithDelimitersAreRedacted() throws {
        // Each piece of each password is distinctive: none of them may show.
        let cases: [(url: String, pieces: [String])] = [
            ("nats://alice:Xq7/Zk9@h:4222", ["Xq7", "Zk9", "alice"]),
            ("nats://alice:Ab1?Cd2#Ef3@h:4222", ["Ab1", "Cd2", "Ef3", "alice"]),
            ("nats://alice:Gh4@Ij5@h:4222", ["Gh4", "Ij5", "alice"]),
            ("nats://alice:Kl6,Mn7@h:4222", ["Kl6", "Mn7", "alice"]),
            ("nats://alice:Op8://Qr9@h:4222", ["Op8", "Qr9", "alice"]),
            ("alice:St1/Uv2@h:4222", ["St1", "Uv2", "alice"]),
            ("nats://al/ice:Wx3@h:4222", ["ice", "Wx3"]),
            ("nats://a:4222,nats://bob:Yz4/Za5@h:4222", ["Yz4", "Za5", "bob"]),
        ]
        for (url, pieces) in cases {
            let redacted = NATSClientConfiguration.redacted(url)
            #expect(pieces.allSatisfy { !redacted.contains($0) }, "redacted: \(redacted)")
            do {
                let configuration = try NATSClientConfiguration(server: url)
                let text = "\(configuration) \(String(reflecting: configuration))"
                #expect(pieces.allSatisfy { !text.contains($0) }, "description: \(text)")
            } catch {
                #expect(pieces.allSatisfy { !"\(error)".contains($0) }, "error: \(error)")
            }
        }
        #expect(NATSClientConfiguration.redacted("nats://a:b@h:1/x") == "nats://***@h:1/x")
        #expect(NATSClientConfiguration.redacted("nats://h:4222") == "nats://h:4222")
    }

    @Test("X4: a percent-encoded password in a URL is sent decoded, as the server knows it")
    func percentEncodedPasswordIsDecoded() async throws {
        let server = try await ScriptedNATSServer()
        defer { Task { await server.shutdown() } }
        let configuration = try NATSClientConfiguration(
            server: "nats://al%40ice:pa%2Fss%40w%2Cd@127.0.0.1:\(server.port)")
        let client = NATSClient(configuration: configuration, logger: quietLogger)
        try await client.connect()
        let line = server.lines(of: 1).first { $0.hasPrefix("CONNECT ") } ?? ""
        let json = try JSONSerialization.jsonObject(with: Data(line.dropFirst("CONNECT ".count).utf8)) as? [String: Any]
        #expect(json?["user"] as? String == "al@ice" && json?["pass"] as? String == "pa/ss@w,d", "\(line)")
        await client.close()
    }

    @Test(
        "X2: a publish is retried 50 ms, then 100 ms… up to 2 s apart, each wait jittered to between half and all of it"
    )
    func publishRetryBackoff() {
        let bounds = (1...10).map { _Exporter.retryDelayBound(afterAttempt: $0) }
        #expect(
            bounds == [50, 100, 200, 400, 800, 1_600, 2_000, 2_000, 2_000, 2_000].map { Duration.milliseconds($0) })
        #expect(_Exporter.retryDelayBound(afterAttempt: .max) == .seconds(2))
        #expect(_Exporter.retryDelayBound(afterAttempt: 0) == .milliseconds(50))
        #expect(_Exporter.retryDelayBound(afterAttempt: .min) == .milliseconds(50))
        for attempt in 1...10 {
            let bound = _Exporter.retryDelayBound(afterAttempt: attempt)
            let waits = (0..<50).map { _ in _Exporter.retryDelay(afterAttempt: attempt) }
            #expect(waits.allSatisfy { $0 >= bound / 2 && $0 <= bound }, "\(attempt): \(waits)")
        }
    }

    @Test("X2: a duration sent to the server in nanoseconds saturates rather than overflows")
    func nanosecondsSaturate() {
        #expect(NATSJetStreamTransport.nanoseconds(.milliseconds(1_500)) == 1_500_000_000)
        #expect(NATSJetStreamTransport.nanoseconds(.milliseconds(Int.max)) == .max)
        #expect(NATSJetStreamTransport.nanoseconds(.seconds(Int64.max)) == .max)
        #expect(NATSJetStreamTransport.nanoseconds(.seconds(Int64.min)) == .min)
        #expect(NATSJetStreamTransport.nanoseconds(.zero) == 0)
    }

    @Test(
        "X4: a bad command line ends the demo with one line on stderr and exit status 1, never a trap",
        arguments: [
            ["frobnicate"],
            [],
            ["work", "--group"],
            ["work", "--group", "g", "--max-delivr", "3"],
            ["produce", "--count", "-1"],
            ["produce", "--count", "many"],
            ["produce", "--first-id", "9223372036854775807", "--count", "10"],
            ["produce", "--window", "0"],
            ["work", "--group", "g", "--ack-wait-ms", "9223372036854775807"],
            ["work", "--group", "g", "--max-deliver", "9223372036854775807"],
            ["work", "--group", "g", "--retry-delay-ms", "-5"],
            ["work", "--group", "g", "--max-held", "0"],
            ["work", "--group", "g", "--storage", "tape"],
        ])
    func demoRejectsBadOptions(_ arguments: [String]) async throws {
        // Port 1: were the options taken, the demo would fail to connect, with another line.
        let child = try ChildProcess(
            demoExecutable,
            arguments.isEmpty ? [] : [arguments[0], "--server", "nats://127.0.0.1:1"] + arguments.dropFirst())
        let status = await child.waitForExit(timeout: .seconds(30))
        _ = await poll(timeout: .seconds(2)) { !child.stderr.isEmpty }
        let stderr = child.stderr
        #expect(status == 1, "\(arguments): \(String(describing: status)) \(stderr)")
        #expect(stderr.count == 1, "\(arguments): \(stderr)")
        #expect(stderr.allSatisfy { !$0.contains("Fatal error") && !$0.contains("connect") }, "\(stderr)")
        if let option = arguments.dropFirst().first(where: { $0.hasPrefix("--") && $0 != "--group" }) {
            #expect(stderr.joined().contains(option), "\(arguments): \(stderr)")
        }
    }

    @Test("X4: the demo's --help prints the usage on stdout and exits 0")
    func demoHelp() async throws {
        let child = try ChildProcess(demoExecutable, ["--help"])
        let status = await child.waitForExit(timeout: .seconds(30))
        _ = await poll(timeout: .seconds(2)) { child.stdout.count > 5 }
        #expect(status == 0)
        #expect(child.stdout.first == "usage:" && child.stderr.isEmpty, "\(child.stdout) \(child.stderr)")
    }
}
