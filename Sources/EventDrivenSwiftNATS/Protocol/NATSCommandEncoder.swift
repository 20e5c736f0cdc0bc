// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore

/// Writes client operations in the NATS text protocol. Pure: it only appends bytes.
enum NATSCommandEncoder {
    /// `PUB` or, with headers, `HPUB`; written straight into `out`, with no intermediate copy.
    static func publish(
        subject: String, replyTo: String?, headers: NATSHeaders?, payload: ByteBuffer, into out: inout ByteBuffer
    ) {
        if let headers, !headers.isEmpty {
            let headerLength = headerBlockLength(headers)
            out.writeStaticString("HPUB ")
            out.writeString(subject)
            if let replyTo {
                out.writeStaticString(" ")
                out.writeString(replyTo)
            }
            out.writeStaticString(" ")
            out.writeString(String(headerLength))
            out.writeStaticString(" ")
            out.writeString(String(headerLength + payload.readableBytes))
            out.writeStaticString("\r\n")
            writeHeaderBlock(headers, into: &out)
        } else {
            out.writeStaticString("PUB ")
            out.writeString(subject)
            if let replyTo {
                out.writeStaticString(" ")
                out.writeString(replyTo)
            }
            out.writeStaticString(" ")
            out.writeString(String(payload.readableBytes))
            out.writeStaticString("\r\n")
        }
        out.writeImmutableBuffer(payload)
        out.writeStaticString("\r\n")
    }

    /// What the bridge's exporter sends per event, `HPUB <subject> <replyPrefix><token> <header
    /// size> <total size>`, then `NATS/1.0`, `Nats-Msg-Id: <id>`, the type's `fixedHeaders`
    /// (whole lines), `traceparent` when given, and the body: its length worked out first, then
    /// every part copied into `out` in one pass (writing it part by part through `ByteBuffer`'s
    /// string writers cost 10 % of the producer).
    /// - Parameter writeID: writes the 36 characters of the message id at the pointer.
    static func exportPublish(
        subject: [UInt8], replyPrefix: [UInt8], token: UInt64, writeID: (UnsafeMutableRawPointer) -> Void,
        fixedHeaders: [UInt8], traceparent: String?, body: UnsafeRawBufferPointer, into out: inout ByteBuffer
    ) {
        var traceparentBytes: [UInt8] = []
        if let traceparent { traceparentBytes = Array(traceparent.utf8) }
        let idLength = 36
        let headerLength = exportHeaderLength(fixedHeaders: fixedHeaders.count, traceparent: traceparent)
        let total = headerLength + body.count
        let lineLength =
            5 + subject.count + 1 + replyPrefix.count + decimalLength(token) + 1 + decimalLength(UInt64(headerLength))
            + 1 + decimalLength(UInt64(total)) + 2
        let size = lineLength + total + 2
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { buffer in
            // A writer value rather than local functions over a captured pointer: those made
            // every copy a dynamic exclusivity check (`swift_beginAccess`).
            var writer = _RawWriter(position: buffer.baseAddress!)
            writer.copy("HPUB ")
            writer.copy(subject)
            writer.copy(" ")
            writer.copy(replyPrefix)
            writer.decimal(token)
            writer.copy(" ")
            writer.decimal(UInt64(headerLength))
            writer.copy(" ")
            writer.decimal(UInt64(total))
            writer.copy("\r\nNATS/1.0\r\nNats-Msg-Id: ")
            writeID(writer.position)
            writer.position += idLength
            writer.copy("\r\n")
            writer.copy(fixedHeaders)
            if traceparent != nil {
                writer.copy("traceparent: ")
                writer.copy(traceparentBytes)
                writer.copy("\r\n")
            }
            writer.copy("\r\n")
            writer.copy(body)
            writer.copy("\r\n")
            return size
        }
    }

    /// The size of ``exportPublish(subject:replyPrefix:token:writeID:fixedHeaders:traceparent:body:into:)``'s
    /// header block: `NATS/1.0`, `Nats-Msg-Id` (36 characters), `fixedHeaders` bytes of fixed
    /// lines, `traceparent` when given, and the closing CRLF.
    static func exportHeaderLength(fixedHeaders: Int, traceparent: String?) -> Int {
        10 + 13 + 36 + 2 + fixedHeaders + (traceparent.map { 13 + $0.utf8.count + 2 } ?? 0) + 2
    }

    /// The size the server checks against its `max_payload` for an exported message: its header
    /// block and its body of `body` bytes.
    static func exportPayloadSize(fixedHeaders: Int, traceparent: String?, body: Int) -> Int {
        exportHeaderLength(fixedHeaders: fixedHeaders, traceparent: traceparent) + body
    }

    /// Copies bytes to raw memory whose room was worked out before.
    struct _RawWriter {
        var position: UnsafeMutableRawPointer

        mutating func copy(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            position.copyMemory(from: base, byteCount: bytes.count)
            position += bytes.count
        }

        mutating func copy(_ text: StaticString) {
            copy(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        mutating func copy(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { copy($0) }
        }

        mutating func decimal(_ value: UInt64) {
            let length = NATSCommandEncoder.decimalLength(value)
            var rest = value
            for index in stride(from: length - 1, through: 0, by: -1) {
                position.storeBytes(of: UInt8(ascii: "0") + UInt8(rest % 10), toByteOffset: index, as: UInt8.self)
                rest /= 10
            }
            position += length
        }
    }

    /// The number of decimal digits of `value`.
    static func decimalLength(_ value: UInt64) -> Int {
        var length = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            length += 1
        }
        return length
    }

    /// `SUB <subject> [queue] <sid>`.
    static func subscribe(subject: String, queue: String?, sid: UInt64, into out: inout ByteBuffer) {
        out.writeStaticString("SUB ")
        out.writeString(subject)
        if let queue {
            out.writeStaticString(" ")
            out.writeString(queue)
        }
        out.writeStaticString(" ")
        out.writeString(String(sid))
        out.writeStaticString("\r\n")
    }

    /// `UNSUB <sid>`.
    static func unsubscribe(sid: UInt64, into out: inout ByteBuffer) {
        out.writeStaticString("UNSUB ")
        out.writeString(String(sid))
        out.writeStaticString("\r\n")
    }

    /// `CONNECT {json}`.
    static func connect(json: String, into out: inout ByteBuffer) {
        out.writeStaticString("CONNECT ")
        out.writeString(json)
        out.writeStaticString("\r\n")
    }

    static func ping(into out: inout ByteBuffer) { out.writeStaticString("PING\r\n") }
    static func pong(into out: inout ByteBuffer) { out.writeStaticString("PONG\r\n") }

    /// The size of `NATS/1.0\r\nName: Value\r\n…\r\n`.
    static func headerBlockLength(_ headers: NATSHeaders) -> Int {
        var length = 12  // "NATS/1.0\r\n" and the closing "\r\n"
        for (name, value) in headers { length += name.utf8.count + value.utf8.count + 4 }
        return length
    }

    /// `NATS/1.0\r\nName: Value\r\n…\r\n`.
    static func writeHeaderBlock(_ headers: NATSHeaders, into out: inout ByteBuffer) {
        out.writeStaticString("NATS/1.0\r\n")
        for (name, value) in headers {
            out.writeString(name)
            out.writeStaticString(": ")
            out.writeString(value)
            out.writeStaticString("\r\n")
        }
        out.writeStaticString("\r\n")
    }

    /// Whether `token` can be a queue group: not empty, no whitespace or control byte.
    static func isValidToken(_ token: String) -> Bool {
        !token.isEmpty && !token.utf8.contains { $0 <= 0x20 || $0 == 0x7F }
    }

    /// Whether `subject` is a subject the protocol can carry: dot-separated tokens, none empty,
    /// no whitespace or control byte; with `wildcards`, `*` tokens and a last `>` token.
    static func isValidSubject(_ subject: String, wildcards: Bool) -> Bool {
        var tokenLength = 0
        var tokenIsWildcard = false
        var afterFullWildcard = false
        for byte in subject.utf8 {
            if byte <= 0x20 || byte == 0x7F || afterFullWildcard { return false }
            if byte == UInt8(ascii: ".") {
                if tokenLength == 0 { return false }
                tokenLength = 0
                tokenIsWildcard = false
                continue
            }
            if byte == UInt8(ascii: "*") || byte == UInt8(ascii: ">") {
                guard wildcards, tokenLength == 0 else { return false }
                tokenIsWildcard = true
                afterFullWildcard = byte == UInt8(ascii: ">")
                tokenLength = 1
                continue
            }
            if tokenIsWildcard { return false }
            tokenLength += 1
        }
        return tokenLength > 0
    }

    /// Why `headers` cannot be written as they are, or `nil`: a name must be printable ASCII
    /// without a colon, a value must not hold CR or LF (either would split the frame).
    static func headerProblem(_ headers: NATSHeaders) -> String? {
        for (name, value) in headers {
            if name.isEmpty || name.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: ":") }) {
                return "header name '\(name.debugDescription)' is not printable ASCII without a colon"
            }
            if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
                return "value of header \(name) holds CR or LF"
            }
        }
        return nil
    }
}
