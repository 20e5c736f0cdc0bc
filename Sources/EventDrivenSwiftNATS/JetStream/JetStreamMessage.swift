// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
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
    /// the longer form with domain and account hash); `nil` when it has none, or when a number
    /// is not one (beyond `UInt64`, or a delivery count of 0 or beyond `Int`).
    init?(_ message: NATSMessage, client: NATSClient) {
        guard let reply = message.replyTo, reply.hasPrefix("$JS.ACK.") else { return nil }
        // Scanned as bytes where the string keeps them: splitting the subject into strings, or
        // copying it into arrays, cost more than the rest of a delivery.
        var ackSubject = reply
        let numbers = ackSubject.withUTF8 { utf8 -> (delivered: UInt64, sequence: UInt64)? in
            // One pass: the numbers in tokens 4 to 7 (nil unless all digits), and the count of
            // tokens, which says whether the delivery count is token 4 (9 tokens) or 6 (11 or more).
            var numbers: (UInt64?, UInt64?, UInt64?, UInt64?) = (nil, nil, nil, nil)
            var token = 0
            var value: UInt64 = 0
            var digits = 0
            var isNumber = true
            func endToken() {
                // A number beyond `UInt64` is not one (its token reads as nil).
                guard isNumber, digits > 0 else { return }
                switch token {
                case 4: numbers.0 = value
                case 5: numbers.1 = value
                case 6: numbers.2 = value
                case 7: numbers.3 = value
                default: break
                }
            }
            for byte in utf8 {
                if byte == UInt8(ascii: ".") {
                    endToken()
                    token += 1
                    value = 0
                    digits = 0
                    isNumber = true
                } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                    let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                    let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
                    if overflow || carry { isNumber = false }
                    value = sum
                    digits += 1
                } else {
                    isNumber = false
                }
            }
            endToken()
            switch token + 1 {
            case 9: return numbers.0.flatMap { delivered in numbers.1.map { (delivered, $0) } }
            case 11...: return numbers.2.flatMap { delivered in numbers.3.map { (delivered, $0) } }
            default: return nil
            }
        }
        // A delivery count is at least 1; one that does not fit an `Int` is no count.
        guard let (delivered, sequence) = numbers, delivered >= 1, delivered <= UInt64(Int.max) else { return nil }
        self.message = message
        self.deliveryCount = Int(delivered)
        self.streamSequence = sequence
        self.client = client
    }

    /// The subject it was published on.
    public var subject: String { message.subject }
    /// Its headers.
    public var headers: NATSHeaders { message.headers }
    /// Its body.
    public var payload: ByteBuffer { message.payload }
    /// `<stream>:<sequence>`: the same on every delivery, an id for a message published without
    /// `Nats-Msg-Id`.
    public var stableID: String {
        // The stream is the ack subject's third token (the fifth in the form with a domain and account hash).
        let tokens = (message.replyTo ?? "").split(separator: ".", omittingEmptySubsequences: false)
        let stream = tokens.count >= 11 ? tokens[4] : tokens.count > 2 ? tokens[2] : ""
        return "\(stream):\(streamSequence)"
    }

    /// Why its headers could not be decoded, if they could not.
    public var headerError: NATSError? { message.headerError }
    /// Its undecodable header block, when ``headerError`` is set.
    public var rawHeaders: ByteBuffer? { message.rawHeaders }

    /// Handled: the server will not deliver it again (`+ACK`).
    public func ack() throws { try reply(Self.ackBody) }

    /// Not handled: deliver it again, after `delay` if given (`-NAK`).
    public func nak(delay: Duration? = nil) throws {
        guard let delay else { return try reply("-NAK") }
        let nanoseconds = delay.saturatingNanoseconds
        try reply("-NAK {\"delay\": \(nanoseconds)}")
    }

    /// Never deliver it again, although it was not handled (`+TERM`).
    public func term() throws { try reply(Self.termBody) }

    /// Still working on it: restart the ack wait (`+WPI`).
    public func inProgress() throws { try reply("+WPI") }

    /// The bodies sent for every message, made once: a buffer per ack was an allocation per event.
    private static let ackBody = ByteBuffer(string: "+ACK")
    private static let termBody = ByteBuffer(string: "+TERM")

    private func reply(_ body: String) throws {
        try reply(ByteBuffer(string: body))
    }

    private func reply(_ body: ByteBuffer) throws {
        guard let replyTo = message.replyTo else { return }
        try client.publish(body, to: replyTo)
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

    /// Reads `{"stream":"EDS","seq":12,"duplicate":true}` by scanning its bytes (the hot path:
    /// one per publish), or throws the error the server sent instead. An ack is a JSON object
    /// (braces around it) with a quoted `stream` and a numeric `seq`: anything else is an
    /// unreadable ack, thrown as a ``JetStreamAPIError``.
    static func parse(_ body: String) throws -> JetStreamPublishAck {
        var body = body
        return try body.withUTF8 { try parse(UnsafeRawBufferPointer($0)) }
    }

    /// ``parse(_:)-(String)`` on a reply's body where it lies, without copying it into a string.
    static func parse(_ payload: ByteBuffer) throws -> JetStreamPublishAck {
        try payload.withUnsafeReadableBytes { try parse($0) }
    }

    /// ``parse(_:)-(ByteBuffer)``, and the ack must name `stream`, the stream the subject
    /// belongs to: an ack from another stream does not say that this one stored the message.
    static func parse(_ payload: ByteBuffer, from stream: String) throws -> JetStreamPublishAck {
        let ack = try parse(payload)
        guard ack.stream == stream else {
            throw JetStreamAPIError(
                code: 0, errorCode: nil,
                errorDescription:
                    "publish ack from stream \(ack.stream.prefix(64).debugDescription), expected \(stream)")
        }
        return ack
    }

    /// One pass over the object's keys (`find` per key scanned the body four times): `error`
    /// makes it decode the error and throw it; `stream`, `seq` and `duplicate` are read where
    /// they lie.
    private static func parse(_ bytes: UnsafeRawBufferPointer) throws -> JetStreamPublishAck {
        let quote = UInt8(ascii: "\"")
        let space = UInt8(ascii: " ")
        var stream: Slice<UnsafeRawBufferPointer>?
        var sequence: UInt64?
        var duplicate = false
        var count = bytes.count
        var index = 0
        // A JSON object: `{` first and `}` last, whitespace aside.
        while index < count, Self.isWhitespace(bytes[index]) { index += 1 }
        while count > index, Self.isWhitespace(bytes[count - 1]) { count -= 1 }
        guard count - index >= 2, bytes[index] == UInt8(ascii: "{"), bytes[count - 1] == UInt8(ascii: "}") else {
            throw unreadable(bytes)
        }
        while index < count {
            guard bytes[index] == quote else {
                index += 1
                continue
            }
            // A quoted string: a key when a colon follows it.
            let keyStart = index + 1
            var cursor = keyStart
            while cursor < count, bytes[cursor] != quote { cursor += 1 }
            let key = bytes[keyStart..<cursor]
            cursor += 1
            while cursor < count, bytes[cursor] == space { cursor += 1 }
            guard cursor < count, bytes[cursor] == UInt8(ascii: ":") else {
                index = cursor
                continue
            }
            if equals(key, "error") { throw serverError(bytes) }
            cursor += 1
            while cursor < count, bytes[cursor] == space { cursor += 1 }
            let isQuoted = cursor < count && bytes[cursor] == quote
            if isQuoted { cursor += 1 }
            let valueStart = cursor
            while cursor < count {
                let byte = bytes[cursor]
                if isQuoted ? byte == quote : (byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == space)
                {
                    break
                }
                cursor += 1
            }
            let value = bytes[valueStart..<cursor]
            if isQuoted { cursor += 1 }
            index = cursor
            if equals(key, "stream") {
                stream = isQuoted && !value.isEmpty ? value : nil
            } else if equals(key, "seq") {
                sequence = isQuoted ? nil : NATSProtocolParser.integer(value)
            } else if equals(key, "duplicate") {
                duplicate = !isQuoted && equals(value, "true")
            }
        }
        guard let stream, let sequence else { throw unreadable(bytes) }
        return JetStreamPublishAck(
            stream: String(decoding: stream, as: UTF8.self), sequence: sequence, duplicate: duplicate)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\n")
    }

    /// A reply that is no ack; its text cut to a short prefix.
    private static func unreadable(_ bytes: UnsafeRawBufferPointer) -> JetStreamAPIError {
        JetStreamAPIError(
            code: 0, errorCode: nil,
            errorDescription: "unreadable publish ack: \(String(decoding: bytes.prefix(256), as: UTF8.self))")
    }

    /// Whether `bytes` are `text` (`memcmp`: generic slice comparison cost more than the rest).
    private static func equals(_ bytes: Slice<UnsafeRawBufferPointer>, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        guard let base = bytes.base.baseAddress, bytes.count > 0 else { return bytes.isEmpty }
        return memcmp(base + bytes.startIndex, text.utf8Start, bytes.count) == 0
    }

    /// The error the server sent instead of an ack.
    private static func serverError(_ bytes: UnsafeRawBufferPointer) -> any Error {
        let response = try? JSONDecoderCache.decoder.decode(_ErrorOnly.self, from: Data(bytes))
        return response?.error
            ?? JetStreamAPIError(code: 0, errorCode: nil, errorDescription: String(decoding: bytes, as: UTF8.self))
    }

    private struct _ErrorOnly: Decodable { var error: JetStreamAPIError? }
}
