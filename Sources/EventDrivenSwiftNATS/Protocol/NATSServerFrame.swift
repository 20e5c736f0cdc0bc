// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore

/// One operation the server sent, parsed from the wire.
enum NATSServerFrame: Sendable {
    case info(NATSServerInfo)
    case message(NATSMessage)
    case ping
    case pong
    case ok
    case error(String)
}

/// What the server says about itself in `INFO`.
public struct NATSServerInfo: Sendable, Decodable, Equatable {
    /// The server's unique id.
    public var serverID: String
    /// Its version, e.g. `2.9.10`.
    public var version: String
    /// Whether it accepts `HPUB` and sends `HMSG`.
    public var headers: Bool
    /// The largest payload it accepts, in bytes.
    public var maxPayload: Int
    /// Whether it requires TLS.
    public var tlsRequired: Bool
    /// Whether it requires credentials.
    public var authRequired: Bool
    /// Whether it runs JetStream.
    public var jetStream: Bool
    /// The challenge an NKEY or JWT user signs, when the server sent one.
    public var nonce: String?
    /// Whether it accepts TLS without requiring it.
    public var tlsAvailable: Bool
    /// The other servers of its cluster that clients may connect to (`host:port`).
    public var connectURLs: [String]
    /// Whether it is in lame-duck mode: about to shut down, clients should move.
    public var lameDuckMode: Bool

    enum CodingKeys: String, CodingKey {
        case serverID = "server_id"
        case version, headers
        case maxPayload = "max_payload"
        case tlsRequired = "tls_required"
        case authRequired = "auth_required"
        case jetStream = "jetstream"
        case nonce
        case tlsAvailable = "tls_available"
        case connectURLs = "connect_urls"
        case lameDuckMode = "ldm"
    }

    /// Decodes an `INFO` body, with defaults for what a server may leave out.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        serverID = try values.decodeIfPresent(String.self, forKey: .serverID) ?? ""
        version = try values.decodeIfPresent(String.self, forKey: .version) ?? ""
        headers = try values.decodeIfPresent(Bool.self, forKey: .headers) ?? false
        maxPayload = try values.decodeIfPresent(Int.self, forKey: .maxPayload) ?? 1_048_576
        tlsRequired = try values.decodeIfPresent(Bool.self, forKey: .tlsRequired) ?? false
        authRequired = try values.decodeIfPresent(Bool.self, forKey: .authRequired) ?? false
        jetStream = try values.decodeIfPresent(Bool.self, forKey: .jetStream) ?? false
        nonce = try values.decodeIfPresent(String.self, forKey: .nonce)
        tlsAvailable = try values.decodeIfPresent(Bool.self, forKey: .tlsAvailable) ?? false
        connectURLs = try values.decodeIfPresent([String].self, forKey: .connectURLs) ?? []
        lameDuckMode = try values.decodeIfPresent(Bool.self, forKey: .lameDuckMode) ?? false
    }
}
