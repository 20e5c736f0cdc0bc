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

    /// Whether `token` can be a subject, queue group or header part: no whitespace, no CR/LF.
    static func isValidToken(_ token: String) -> Bool {
        !token.isEmpty && !token.utf8.contains { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    }
}
