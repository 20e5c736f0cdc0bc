// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// Writes `text` to a new file in a temporary directory and returns its path.
func temporaryFile(_ name: String, _ text: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("eds-auth-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
}

/// A JWT as NATS writes them: `ed25519-nkey`, signed by `issuer`, with `nats` claims.
func natsJWT(subject: String, name: String, issuer: _NKeys.KeyPair, nats: [String: Any]) throws -> String {
    let header = #"{"typ":"JWT","alg":"ed25519-nkey"}"#
    let claims: [String: Any] = [
        "jti": _NKeys.base32(Array(UUID().uuidString.utf8)), "iat": Int(Date().timeIntervalSince1970),
        "iss": issuer.publicKey, "sub": subject, "name": name, "nats": nats,
    ]
    let body = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
    let signingInput = _NKeys.base64URL(Data(header.utf8)) + "." + _NKeys.base64URL(body)
    return signingInput + "." + _NKeys.base64URL(try issuer.sign(Data(signingInput.utf8)))
}

/// Authentication as production NATS does it (SPEC X4, issue 27 §3), against a real server.
extension NATSServerTests {
    @Test("X4: NKEY encoding round-trips; a seed's checksum is checked")
    func nkeyEncoding() throws {
        let user = _NKeys.KeyPair(random: .user)
        #expect(user.publicKey.hasPrefix("U") && user.publicKey.count == 56)
        #expect(user.seed.hasPrefix("SU") && user.seed.count == 58)
        let again = try _NKeys.KeyPair(seed: user.seed)
        #expect(again.publicKey == user.publicKey && again.kind == .user)
        #expect(_NKeys.KeyPair(random: .account).publicKey.hasPrefix("A"))
        #expect(_NKeys.KeyPair(random: .operatorKey).seed.hasPrefix("SO"))
        var broken = Array(user.seed)
        broken[10] = broken[10] == "A" ? "B" : "A"
        #expect(throws: (any Error).self) { try _NKeys.KeyPair(seed: String(broken)) }
        #expect(_NKeys.base32Decode(_NKeys.base32([1, 2, 3, 250, 251])) == [1, 2, 3, 250, 251])
        // CRC-16/XMODEM's check value.
        #expect(_NKeys.crc16(Array("123456789".utf8)) == 0x31C3)
    }

    @Test("X4: an NKEY user signs the server's nonce; a wrong seed is refused with a typed error")
    func nkeyLogin() async throws {
        let user = _NKeys.KeyPair(random: .user)
        let config = try temporaryFile("nkey.conf", "authorization { users = [ { nkey: \(user.publicKey) } ] }\n")
        try await withNATSServer(arguments: ["-c", config]) { server in
            let client = try await connectedClient(server) { $0.authentication = .nkey(seed: user.seed) }
            try client.subscribe(to: "echo") { message in try? client.publish(message.payload, to: message.replyTo!) }
            try await client.flush()
            #expect(try await client.request(ByteBuffer(string: "hi"), to: "echo").string == "hi")
            await client.close()
            let stranger = NATSClient(
                configuration: try {
                    var configuration = try NATSClientConfiguration(server: server.url)
                    configuration.authentication = .nkey(seed: _NKeys.KeyPair(random: .user).seed)
                    return configuration
                }(), logger: quietLogger)
            await #expect(throws: NATSError.authorizationFailed("Authorization Violation")) {
                try await stranger.connect()
            }
        }
    }

    @Test("X4: an operator/account/user JWT set-up with the memory resolver; the user logs in with a .creds file")
    func jwtLogin() async throws {
        let operatorKey = _NKeys.KeyPair(random: .operatorKey)
        let account = _NKeys.KeyPair(random: .account)
        let user = _NKeys.KeyPair(random: .user)
        let operatorJWT = try natsJWT(
            subject: operatorKey.publicKey, name: "op", issuer: operatorKey, nats: ["type": "operator", "version": 2])
        let accountJWT = try natsJWT(
            subject: account.publicKey, name: "acct", issuer: operatorKey,
            nats: [
                "type": "account", "version": 2,
                "limits": [
                    "subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1, "wildcards": true,
                    "conn": -1, "leaf": -1,
                ],
            ])
        let userJWT = try natsJWT(
            subject: user.publicKey, name: "worker", issuer: account,
            nats: ["type": "user", "version": 2, "pub": [:], "sub": [:], "subs": -1, "data": -1, "payload": -1])
        let config = try temporaryFile(
            "operator.conf",
            "operator: \(operatorJWT)\nresolver: MEMORY\nresolver_preload: {\n  \(account.publicKey): \(accountJWT)\n}\n"
        )
        let creds = try temporaryFile(
            "user.creds",
            """
            -----BEGIN NATS USER JWT-----
            \(userJWT)
            ------END NATS USER JWT------

            ************************* IMPORTANT *************************
            NKEY Seed printed below can be used to sign and prove identity.

            -----BEGIN USER NKEY SEED-----
            \(user.seed)
            ------END USER NKEY SEED------

            """)
        try await withNATSServer(arguments: ["-c", config], jetStream: false) { server in
            let authentication = try NATSClientConfiguration.Authentication.credentialsFile(creds)
            #expect(authentication == .credentials(jwt: userJWT, seed: user.seed))
            #expect(!"\(authentication)".contains(user.seed))
            let client = try await connectedClient(server) { $0.authentication = authentication }
            try client.subscribe(to: "echo") { message in try? client.publish(message.payload, to: message.replyTo!) }
            try await client.flush()
            #expect(try await client.request(ByteBuffer(string: "jwt"), to: "echo").string == "jwt")
            await client.close()
            // The same JWT with another seed cannot sign for it.
            let impostor = NATSClient(
                configuration: try {
                    var configuration = try NATSClientConfiguration(server: server.url)
                    configuration.authentication = .credentials(
                        jwt: userJWT, seed: _NKeys.KeyPair(random: .user).seed)
                    return configuration
                }(), logger: quietLogger)
            await #expect(throws: NATSError.self) { try await impostor.connect() }
        }
    }
}
