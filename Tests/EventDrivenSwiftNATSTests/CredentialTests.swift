// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// Credentials stay with their server and out of errors; refused credentials end in a typed
/// error, not an endless retry; permissions surface at the call (SPEC X4, issue 27 §3).
extension NATSServerTests {
    @Test("X4: credentials in a URL go to that server only, not to every server")
    func credentialsPerURL() async throws {
        let server = try await ScriptedNATSServer()
        defer { Task { await server.shutdown() } }
        // The first URL's server is not there; the second's gets its own credentials.
        let configuration = try NATSClientConfiguration(
            server: "nats://alice:first-secret@127.0.0.1:1,nats://bob:second-secret@127.0.0.1:\(server.port)")
        let client = NATSClient(configuration: configuration, logger: quietLogger)
        try await client.connect()
        let connect = server.lines(of: 1).first { $0.hasPrefix("CONNECT ") } ?? ""
        #expect(connect.contains("\"user\":\"bob\"") && connect.contains("second-secret"))
        #expect(!connect.contains("first-secret") && !connect.contains("alice"))
        await client.close()
    }

    @Test("X4: no credential appears in an error text or a description")
    func credentialsNeverInErrors() async throws {
        #expect(throws: NATSError.self) { try NATSClientConfiguration(server: "nats://alice:hunter2@bad host:4222") }
        do {
            _ = try NATSClientConfiguration(server: "nats://alice:hunter2@bad host:4222")
        } catch {
            #expect(!"\(error)".contains("hunter2"))
            #expect("\(error)".contains("***"))
        }
        let unreachable = NATSClient(
            configuration: try NATSClientConfiguration(server: "nats://alice:hunter2@127.0.0.1:1"), logger: quietLogger)
        do {
            try await unreachable.connect()
            Issue.record("connected to nothing")
        } catch {
            #expect(!"\(error)".contains("hunter2"))
        }
        #expect(NATSClientConfiguration.redacted("nats://a:b@h:1/x") == "nats://***@h:1/x")
        #expect(NATSClientConfiguration.redacted("tok@h") == "***@h")
        let secrets: [NATSClientConfiguration.Authentication] = [
            .userPassword(user: "alice", password: "hunter2"), .token("hunter2"),
            .nkey(seed: _NKeys.KeyPair(random: .user).seed), .credentials(jwt: "eyhunter2", seed: "SUhunter2"),
        ]
        for secret in secrets {
            #expect(!"\(secret)".contains("hunter2") && !String(reflecting: secret).contains("hunter2"))
        }
        var configuration = try NATSClientConfiguration(server: "nats://alice:hunter2@127.0.0.1:4222")
        configuration.authentication = .token("hunter2")
        #expect(!"\(configuration)".contains("hunter2") && !String(reflecting: configuration).contains("hunter2"))
        // A .creds file that is not one: the error names the path, not the content.
        let broken = try temporaryFile("broken.creds", "hunter2 and nothing else\n")
        do {
            _ = try NATSClientConfiguration.Authentication.credentialsFile(broken)
            Issue.record("read a .creds file without blocks")
        } catch {
            #expect("\(error)".contains("broken.creds") && !"\(error)".contains("hunter2"))
        }
    }

    @Test("X4: credentials refused again and again while reconnecting end in a typed error; the bridge stops with it")
    func authorizationRetryLimit() async throws {
        let config = try temporaryFile("auth.conf", "authorization { user: alice, password: first }\n")
        try await withNATSServer(arguments: ["-c", config]) { server in
            let url = "nats://alice:first@127.0.0.1:\(server.port)"
            var clientConfiguration = try NATSClientConfiguration(server: url)
            clientConfiguration.reconnect.initialDelay = .milliseconds(10)
            let client = NATSClient(configuration: clientConfiguration, logger: quietLogger)
            try await client.connect()
            let bridge = try NATSBridge(bus: EventBus(), events: try registry(), server: url, logger: quietLogger)
            try bridge.listen(OrderPlaced.self, mode: .group("auth")) { _, _ in }
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            // The password changes under them.
            try Data("authorization { user: alice, password: second }\n".utf8).write(to: URL(fileURLWithPath: config))
            await server.stop()
            try await server.start()
            #expect(await poll(timeout: .seconds(60)) { client.closeReason != nil })
            guard case .authorizationFailed(let detail) = client.closeReason else {
                Issue.record("closed for \(String(describing: client.closeReason))")
                return
            }
            #expect(detail.contains("Authorization Violation"))
            do {
                try await running.value
                Issue.record("the bridge ran on without credentials")
            } catch let error as NATSError {
                guard case .authorizationFailed = error else {
                    Issue.record("the bridge stopped with \(error)")
                    return
                }
            }
        }
    }

    @Test(
        "X4: a publish the user may not make fails its request with the subject; a refused subscription ends its stream"
    )
    func permissionViolations() async throws {
        let config = try temporaryFile(
            "permissions.conf",
            """
            authorization {
              users = [
                { user: admin, password: admin }
                { user: limited, password: limited, permissions: {
                    publish: { allow: ["allowed.>", "_INBOX_limited.>"] }
                    subscribe: { allow: ["allowed.>", "_INBOX_limited.>"] } } }
              ]
            }

            """)
        try await withNATSServer(arguments: ["-c", config], jetStream: false) { server in
            let admin = try await connectedClient(server) {
                $0.authentication = .userPassword(user: "admin", password: "admin")
            }
            try admin.subscribe(to: "allowed.echo") { message in
                try? admin.publish(message.payload, to: message.replyTo!)
            }
            try await admin.flush()
            let limited = try await connectedClient(server) {
                $0.authentication = .userPassword(user: "limited", password: "limited")
                $0.inboxPrefix = "_INBOX_limited"
            }
            let errors = Collected<NATSError>()
            limited.setErrorHandler { errors.append($0) }
            // The narrow inbox permission is enough for requests.
            #expect(try await limited.request(ByteBuffer(string: "ok"), to: "allowed.echo").string == "ok")
            let started = ContinuousClock.now
            await #expect(throws: NATSError.permissionViolation(operation: "publish to", subject: "secret.orders")) {
                _ = try await limited.request(ByteBuffer(string: "x"), to: "secret.orders", timeout: .seconds(30))
            }
            #expect(ContinuousClock.now - started < .seconds(10))
            let stream = try limited.messages(on: "secret.events")
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next() == nil)
            #expect(errors.values.contains(.permissionViolation(operation: "subscribe to", subject: "secret.events")))
            #expect(limited.statistics.permissionViolations >= 2)
            await limited.close()
            await admin.close()
        }
    }

    @Test(
        "X4: the demo meets a bad URL, an unreachable server or a refused login with one line on stderr, never a trap")
    func demoErrors() async throws {
        func run(_ server: String) async throws -> (status: Int32?, stderr: [String]) {
            let child = try ChildProcess(demoExecutable, ["work", "--server", server, "--group", "g"])
            let status = await child.waitForExit(timeout: .seconds(30))
            _ = await poll(timeout: .seconds(2)) { !child.stderr.isEmpty }
            return (status, child.stderr)
        }
        for server in ["nats://alice:hunter2@bad host:4222", "nats://alice:hunter2@127.0.0.1:1"] {
            let (status, stderr) = try await run(server)
            #expect(status == 1, "\(server): \(stderr)")
            #expect(stderr.count == 1, "\(server): \(stderr)")
            #expect(!stderr.joined().contains("hunter2") && !stderr.joined().contains("Fatal error"))
        }
        try await withNATSServer(arguments: ["--user", "alice", "--pass", "right"]) { server in
            let (status, stderr) = try await run("nats://alice:hunter2@127.0.0.1:\(server.port)")
            #expect(status == 1, "\(stderr)")
            #expect(stderr.count == 1 && stderr.joined().contains("refused the credentials"), "\(stderr)")
            #expect(!stderr.joined().contains("hunter2"))
        }
    }
}
