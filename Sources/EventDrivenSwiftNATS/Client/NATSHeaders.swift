// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The headers of a NATS message (`HPUB`/`HMSG`): ordered, case-preserving, with repeatable names.
///
/// Names are compared without regard to case, as NATS servers and clients do.
public struct NATSHeaders: Sendable, Equatable, Sequence {
    /// The name/value pairs in the order they were added or received.
    public private(set) var fields: [(name: String, value: String)] = []
    /// The status code of a message the server made (`NATS/1.0 404 No Messages`), if any.
    public var status: Int?
    /// The words after the status code, if any.
    public var statusDescription: String?

    /// Empty headers.
    public init() {}

    /// Empty headers with room for `capacity` fields.
    init(reservingCapacity capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    /// Headers with the given pairs, in order.
    public init(_ pairs: [(String, String)]) {
        for (name, value) in pairs { append(name, value) }
    }

    /// Whether there is no field and no status.
    public var isEmpty: Bool { fields.isEmpty && status == nil }

    /// The first value of `name`, or `nil`; setting replaces every value of `name`.
    public subscript(name: String) -> String? {
        get {
            // Exact spelling first: what peers send in practice.
            if let exact = fields.first(where: { $0.name == name }) { return exact.value }
            return fields.first { Self.namesMatch($0.name, name) }?.value
        }
        set {
            fields.removeAll { Self.namesMatch($0.name, name) }
            if let newValue { fields.append((name, newValue)) }
        }
    }

    /// Whether two names are equal but for the case of ASCII letters (header names are ASCII),
    /// compared byte by byte: lower-casing both allocated two strings per field on every look-up
    /// of a header that is absent.
    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.elementsEqual(rhs.utf8) { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z"))
        }
    }

    /// Adds a value for `name`, keeping earlier ones.
    public mutating func append(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Iterates the name/value pairs in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Equal when status and fields are equal, in order.
    public static func == (lhs: NATSHeaders, rhs: NATSHeaders) -> Bool {
        lhs.status == rhs.status && lhs.statusDescription == rhs.statusDescription
            && lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// The header names the bridge writes and reads.
public enum NATSHeaderName {
    /// JetStream deduplicates publishes that carry the same id within the stream's window.
    public static let messageID = "Nats-Msg-Id"
    /// The registered name of the event in the body.
    public static let event = "Eds-Event"
    /// The registered version of the event's encoding.
    public static let eventVersion = "Eds-Event-Version"
    /// The process or bus that published the event.
    public static let source = "Eds-Source"
    /// Why a message was dead-lettered (on `<prefix>.deadletter.<name>` copies).
    public static let error = "Eds-Error"
    /// On a dead-letter copy, the names of the original's headers that could not be written
    /// (not printable ASCII without a colon): percent-encoded, comma-separated.
    public static let droppedHeaders = "Eds-Dropped-Headers"
    /// W3C trace context.
    public static let traceparent = "traceparent"
    /// The body's media type: `application/json`.
    public static let contentType = "Content-Type"
    /// The version of the bridge's wire format (``currentFormat``); a message without it is read
    /// as version 1.
    public static let format = "Eds-Format"
    /// The wire format this bridge writes and reads.
    public static let currentFormat = "1"
}
