import NIOCore

/// A message delivered by a JetStream consumer, with the operations that settle it.
public struct JetStreamMessage: Sendable {
    /// The message as the client received it (the original subject, headers and body).
    public let message: NATSMessage
    /// How often the server has delivered it, this time included (1 on the first delivery).
    public let deliveryCount: Int
    /// Its sequence number in the stream.
    public let streamSequence: UInt64
    private let client: NATSClient

    /// Reads the delivery count and sequence from the ack subject
    /// (`$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>`, or
    /// the longer form with domain and account hash); `nil` when it has none.
    init?(_ message: NATSMessage, client: NATSClient) {
        guard let reply = message.replyTo, reply.hasPrefix("$JS.ACK.") else { return nil }
        let tokens = reply.split(separator: ".", omittingEmptySubsequences: false)
        let first: Int
        switch tokens.count {
        case 9: first = 4
        case 11...: first = 6
        default: return nil
        }
        guard let delivered = Int(tokens[first]), let sequence = UInt64(tokens[first + 1]) else { return nil }
        self.message = message
        self.deliveryCount = delivered
        self.streamSequence = sequence
        self.client = client
    }

    /// The subject it was published on.
    public var subject: String { message.subject }
    /// Its headers.
    public var headers: NATSHeaders { message.headers }
    /// Its body.
    public var payload: ByteBuffer { message.payload }

    /// Handled: the server will not deliver it again (`+ACK`).
    public func ack() throws { try reply("+ACK") }

    /// Not handled: deliver it again, after `delay` if given (`-NAK`).
    public func nak(delay: Duration? = nil) throws {
        guard let delay else { return try reply("-NAK") }
        let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        try reply("-NAK {\"delay\": \(nanoseconds)}")
    }

    /// Never deliver it again, although it was not handled (`+TERM`).
    public func term() throws { try reply("+TERM") }

    /// Still working on it: restart the ack wait (`+WPI`).
    public func inProgress() throws { try reply("+WPI") }

    private func reply(_ body: String) throws {
        guard let replyTo = message.replyTo else { return }
        try client.publish(ByteBuffer(string: body), to: replyTo)
    }
}

/// The server's answer to a JetStream publish.
public struct JetStreamPublishAck: Sendable, Equatable {
    /// The stream that stored the message.
    public var stream: String
    /// Its sequence number there.
    public var sequence: UInt64
    /// Whether the server had already stored a message with the same `Nats-Msg-Id`.
    public var duplicate: Bool

    /// Reads `{"stream":"EDS","seq":12,"duplicate":true}` without a JSON decoder (the hot path),
    /// or throws the error the server sent instead.
    static func parse(_ body: String) throws -> JetStreamPublishAck {
        if body.contains("\"error\"") {
            let response = try? JSONDecoderCache.decoder.decode(_ErrorOnly.self, from: Array(body.utf8))
            throw response?.error ?? JetStreamAPIError(code: 0, errorCode: nil, errorDescription: body)
        }
        func value(of key: String) -> Substring? {
            guard let range = body.range(of: "\"\(key)\":") else { return nil }
            let rest = body[range.upperBound...].drop { $0 == " " || $0 == "\"" }
            return rest.prefix { $0 != "," && $0 != "}" && $0 != "\"" }
        }
        guard let stream = value(of: "stream"), let sequence = value(of: "seq").flatMap({ UInt64($0) }) else {
            throw JetStreamAPIError(code: 0, errorCode: nil, errorDescription: "unreadable publish ack: \(body)")
        }
        return JetStreamPublishAck(
            stream: String(stream), sequence: sequence, duplicate: value(of: "duplicate") == "true")
    }

    private struct _ErrorOnly: Decodable { var error: JetStreamAPIError? }
}
