// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore
import NIOSSL
import Testing

@testable import EventDrivenSwiftNATS

private let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

extension NATSServerTests {
    @Test(
        "X2: TLS through swift-nio-ssl: the upgrade after INFO, then publish and request", .enabled(if: openssl != nil))
    func tls() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("eds-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let generate = try ChildProcess(
            URL(fileURLWithPath: openssl!),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ])
        #expect(await generate.waitForExit(timeout: .seconds(30)) == 0)
        try await withNATSServer(arguments: ["--tls", "--tlscert", certificate, "--tlskey", key]) { server in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))
            tls.certificateVerification = .noHostnameVerification
            let client = try await connectedClient(server) { $0.tls = tls }
            let received = Collected<String>()
            try client.subscribe(to: "secure") { received.append($0.string) }
            try client.subscribe(to: "echo") { message in
                try? client.publish(message.payload, to: message.replyTo!)
            }
            try await client.flush()
            try client.publish(ByteBuffer(string: "over TLS"), to: "secure")
            #expect(try await client.request(ByteBuffer(string: "hi"), to: "echo").string == "hi")
            #expect(await poll(timeout: .seconds(60)) { received.values == ["over TLS"] })
            await client.close()
            // Without trust in the server's certificate the handshake fails with a typed error.
            let untrusting = NATSClient(
                configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger)
            await #expect(throws: NATSError.self) { try await untrusting.connect() }
        }
    }
}
