// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A stream's configuration: the part the bridge sets and checks.
public struct JetStreamStreamConfiguration: Codable, Sendable, Equatable {
    /// How a stream stores its messages.
    public enum Storage: String, Codable, Sendable {
        /// On disk: survives a server restart.
        case file
        /// In memory: faster, lost when the server stops.
        case memory
    }

    /// The stream's name (`EDS` by default).
    public var name: String
    /// The subjects it captures (`eds.>` by default).
    public var subjects: [String]
    /// File or memory.
    public var storage: Storage
    /// The window, in nanoseconds, in which a repeated `Nats-Msg-Id` is dropped as a duplicate.
    public var duplicateWindow: Int64
    /// How many servers of a cluster keep a copy (1, 3 or 5).
    public var replicas: Int
    /// How long, in nanoseconds, a message is kept at most; 0 for no limit.
    public var maxAge: Int64
    /// How many bytes the stream keeps at most (the oldest messages go first); -1 for no limit.
    public var maxBytes: Int64

    /// A configuration.
    public init(
        name: String, subjects: [String], storage: Storage, duplicateWindow: Int64, replicas: Int = 1,
        maxAge: Int64 = 0, maxBytes: Int64 = -1
    ) {
        self.name = name
        self.subjects = subjects
        self.storage = storage
        self.duplicateWindow = duplicateWindow
        self.replicas = replicas
        self.maxAge = maxAge
        self.maxBytes = maxBytes
    }

    /// Decodes a stream's configuration, with the server's defaults for what it leaves out.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        name = try values.decode(String.self, forKey: .name)
        subjects = try values.decodeIfPresent([String].self, forKey: .subjects) ?? []
        storage = try values.decode(Storage.self, forKey: .storage)
        duplicateWindow = try values.decodeIfPresent(Int64.self, forKey: .duplicateWindow) ?? 0
        replicas = try values.decodeIfPresent(Int.self, forKey: .replicas) ?? 1
        maxAge = try values.decodeIfPresent(Int64.self, forKey: .maxAge) ?? 0
        maxBytes = try values.decodeIfPresent(Int64.self, forKey: .maxBytes) ?? -1
    }

    enum CodingKeys: String, CodingKey {
        case name, subjects, storage
        case duplicateWindow = "duplicate_window"
        case replicas = "num_replicas"
        case maxAge = "max_age"
        case maxBytes = "max_bytes"
    }
}

/// A pull consumer's configuration: the part the bridge sets and checks.
public struct JetStreamConsumerConfiguration: Codable, Sendable, Equatable {
    /// Its durable name; `nil` for an ephemeral consumer.
    public var durableName: String?
    /// `all` (from the stream's start) or `new` (from now on).
    public var deliverPolicy: String
    /// Always `explicit` here: every message is acknowledged on its own.
    public var ackPolicy: String
    /// How long, in nanoseconds, the server waits for an ack before it redelivers.
    public var ackWait: Int64
    /// How often a message is delivered at most.
    public var maxDeliver: Int
    /// The subject it takes messages from.
    public var filterSubject: String
    /// How many messages may be delivered and not yet acknowledged.
    public var maxAckPending: Int
    /// For an ephemeral consumer, how long, in nanoseconds, it survives without a fetch.
    public var inactiveThreshold: Int64?

    /// A configuration.
    public init(
        durableName: String?, deliverPolicy: String, ackWait: Int64, maxDeliver: Int, filterSubject: String,
        maxAckPending: Int, inactiveThreshold: Int64? = nil
    ) {
        self.durableName = durableName
        self.deliverPolicy = deliverPolicy
        self.ackPolicy = "explicit"
        self.ackWait = ackWait
        self.maxDeliver = maxDeliver
        self.filterSubject = filterSubject
        self.maxAckPending = maxAckPending
        self.inactiveThreshold = inactiveThreshold
    }

    enum CodingKeys: String, CodingKey {
        case durableName = "durable_name"
        case deliverPolicy = "deliver_policy"
        case ackPolicy = "ack_policy"
        case ackWait = "ack_wait"
        case maxDeliver = "max_deliver"
        case filterSubject = "filter_subject"
        case maxAckPending = "max_ack_pending"
        case inactiveThreshold = "inactive_threshold"
    }
}

/// The error part of a JetStream API response.
public struct JetStreamAPIError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP-like code (404, 400, …).
    public var code: Int
    /// The JetStream error code (10059 stream not found, 10014 consumer not found, …).
    public var errorCode: Int?
    /// The server's words.
    public var errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case code
        case errorCode = "err_code"
        case errorDescription = "description"
    }

    /// The error in words.
    public var description: String {
        "JetStream error \(code)/\(errorCode ?? 0): \(errorDescription ?? "")"
    }

    static let streamNotFound = 10059
    static let consumerNotFound = 10014
}

struct _StreamInfoResponse: Decodable {
    var error: JetStreamAPIError?
    var config: JetStreamStreamConfiguration?
}

struct _ConsumerInfoResponse: Decodable {
    var error: JetStreamAPIError?
    var name: String?
    var config: JetStreamConsumerConfiguration?
}

struct _StreamCreateRequest: Encodable {
    var name: String
    var subjects: [String]
    var storage: JetStreamStreamConfiguration.Storage
    var duplicateWindow: Int64
    var retention = "limits"
    var discard = "old"
    var numReplicas = 1
    var maxAge: Int64 = 0
    var maxBytes: Int64 = -1

    enum CodingKeys: String, CodingKey {
        case name, subjects, storage, retention, discard
        case duplicateWindow = "duplicate_window"
        case numReplicas = "num_replicas"
        case maxAge = "max_age"
        case maxBytes = "max_bytes"
    }
}

struct _ConsumerCreateRequest: Encodable {
    var streamName: String
    var config: JetStreamConsumerConfiguration

    enum CodingKeys: String, CodingKey {
        case streamName = "stream_name"
        case config
    }
}
