// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore
import NIOSSL
import Testing

@testable import EventDrivenSwiftNATS

/// Nothing read in plaintext is trusted once TLS is due; replies cannot be forged by guessing;
/// TLS-first, client certificates, IPv6 and IP addresses (SPEC X4, issue 27 §2).
extension NATSServerTests {
    static let tlsInfo =
        "INFO {\"server_id\":\"scripted\",\"version\":\"2.9.0\",\"proto\":1,\"headers\":true,\"max_payload\":1048576,"
        + "\"tls_required\":true}\r\n"

    @Test("X4: bytes sent in plaintext with INFO when TLS is required are a protocol error, never a handshake")
    func plaintextAfterInfoIsRefused() async throws {
        let server = try await ScriptedNATSServer(greeting: { _ in
            Self.tlsInfo + "PONG\r\n+OK\r\nMSG _INBOX.forged.1 1 5\r\nforge\r\n"
        })
        defer { Task { await server.shutdown() } }
        var configuration = try NATSClientConfiguration(server: server.url)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        configuration.tls = tls
        configuration.connectTimeout = .seconds(5)
        let client = NATSClient(configuration: configuration, logger: quietLogger)
        do {
            try await client.connect()
            Issue.record("the handshake completed on plaintext bytes")
        } catch let error as NATSError {
            guard case .protocolError = error else {
                Issue.record("failed with \(error), not a protocol error")
                return
            }
        }
        #expect(!client.isConnected)
        // The same when the server asks for TLS without the client asking for it.
        let asked = NATSClient(configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger)
        await #expect(throws: NATSError.self) { try await asked.connect() }
        #expect(!asked.isConnected)
    }

    @Test("X4: reply tokens are random and a reply counts only on the request's full inbox subject")
    func unguessableReplies() async throws {
        let server = try await ScriptedNATSServer()
        defer { Task { await server.shutdown() } }
        let client = NATSClient(configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger)
        try await client.connect()
        let answers = Collected<String>()
        for _ in 0..<2 {
            try client.request(ByteBuffer(string: "q"), to: "svc", timeout: .seconds(20)) { result in
                answers.append((try? result.get().string) ?? "error")
            }
        }
        #expect(
            await poll(timeout: .seconds(60)) { server.lines(of: 1).filter { $0.hasPrefix("PUB svc ") }.count == 2 })
        guard let inbox = server.subscription(startingWith: "_INBOX.") else {
            Issue.record("no inbox subscription")
            return
        }
        let replies = server.lines(of: 1).filter { $0.hasPrefix("PUB svc ") }.map {
            String($0.split(separator: " ")[2])
        }
        let prefix = String(inbox.subject.dropLast())  // "<inbox>."
        #expect(replies.allSatisfy { $0.hasPrefix(prefix) })
        let tokens = replies.compactMap { UInt64($0.dropFirst(prefix.count)) }
        #expect(tokens.count == 2)
        if tokens.count == 2 {
            // Sequential tokens would differ by one.
            #expect(tokens[0] != tokens[1] && tokens[0] &- tokens[1] != 1 && tokens[1] &- tokens[0] != 1)
            // The right token under another prefix, and a neighbour token, are no replies.
            server.send("MSG _INBOX.someone.else.\(tokens[0]) \(inbox.sid) 5\r\nforge\r\n", on: 1)
            server.send("MSG \(prefix)\(tokens[0] &+ 1) \(inbox.sid) 5\r\nforge\r\n", on: 1)
            server.send("MSG \(prefix)0\(tokens[0]) \(inbox.sid) 5\r\nforge\r\n", on: 1)
            server.send("MSG \(replies[0]) \(inbox.sid) 4\r\nreal\r\n", on: 1)
            #expect(await poll(timeout: .seconds(60)) { answers.values.count == 1 })
            #expect(answers.values == ["real"])
        }
        await client.close()
    }

    @Test(
        "X4: TLS-first, a client certificate from PEM files, IPv6 literals, full verification of an IP address",
        .enabled(if: TestCertificates.openssl != nil))
    func tlsFirstAndClientCertificates() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        // TLS-first against a server that does its handshake before INFO.
        var serverTLS = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificates.serverCertificate).map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: certificates.serverKey, format: .pem)))
        serverTLS.minimumTLSVersion = .tlsv12
        let first = try await ScriptedNATSServer(tls: try NIOSSLContext(configuration: serverTLS))
        defer { Task { await first.shutdown() } }
        var configuration = try NATSClientConfiguration(server: first.url)
        configuration.tls = try NATSClientConfiguration.tlsConfiguration(trustRootsFile: certificates.caCertificate)
        configuration.tlsFirst = true
        let tlsFirstClient = NATSClient(configuration: configuration, logger: quietLogger)
        try await tlsFirstClient.connect()
        try await tlsFirstClient.flush()
        await tlsFirstClient.close()

        // A real server that verifies client certificates; the client checks the server's
        // certificate fully against 127.0.0.1 (an IP address, which NIOSSL takes no server name for).
        try await withNATSServer(arguments: [
            "--tls", "--tlscert", certificates.serverCertificate, "--tlskey", certificates.serverKey,
            "--tlscacert", certificates.caCertificate, "--tlsverify",
        ]) { server in
            var withCertificate = try NATSClientConfiguration(server: server.url)
            withCertificate.tls = try NATSClientConfiguration.tlsConfiguration(
                certificateChainFile: certificates.clientCertificate, privateKeyFile: certificates.clientKey,
                trustRootsFile: certificates.caCertificate)
            let client = NATSClient(configuration: withCertificate, logger: quietLogger)
            try await client.connect()
            let received = Collected<String>()
            try client.subscribe(to: "secure") { received.append($0.string) }
            try await client.flush()
            try client.publish(ByteBuffer(string: "mutual"), to: "secure")
            #expect(await poll(timeout: .seconds(60)) { received.values == ["mutual"] })
            await client.close()

            var withoutCertificate = try NATSClientConfiguration(server: server.url)
            withoutCertificate.tls = try NATSClientConfiguration.tlsConfiguration(
                trustRootsFile: certificates.caCertificate)
            let refused = NATSClient(configuration: withoutCertificate, logger: quietLogger)
            await #expect(throws: NATSError.self) { try await refused.connect() }
        }
        #expect(throws: NATSError.self) {
            try NATSClientConfiguration.tlsConfiguration(certificateChainFile: "/nonexistent/client.pem")
        }

        // An IPv6 literal in brackets.
        let six = try await ScriptedNATSServer(host: "::1")
        defer { Task { await six.shutdown() } }
        let sixClient = NATSClient(
            configuration: try NATSClientConfiguration(server: "nats://[::1]:\(six.port)"), logger: quietLogger)
        try await sixClient.connect()
        try await sixClient.flush()
        await sixClient.close()
    }
}
