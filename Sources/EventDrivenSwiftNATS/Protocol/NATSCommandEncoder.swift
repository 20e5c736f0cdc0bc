import NIOCore

/// Writes client operations in the NATS text protocol. Pure: it only appends bytes.
enum NATSCommandEncoder {
    /// `PUB` or, with headers, `HPUB`.
    static func publish(
        subject: String, replyTo: String?, headers: NATSHeaders?, payload: ByteBuffer, into out: inout ByteBuffer
    ) {
        let headerBlock = headers.flatMap { $0.isEmpty ? nil : encodeHeaders($0) }
        if let headerBlock {
            out.writeStaticString("HPUB ")
            out.writeString(subject)
            if let replyTo { out.writeStaticString(" "); out.writeString(replyTo) }
            out.writeStaticString(" ")
            out.writeString(String(headerBlock.count))
            out.writeStaticString(" ")
            out.writeString(String(headerBlock.count + payload.readableBytes))
            out.writeStaticString("\r\n")
            out.writeBytes(headerBlock)
        } else {
            out.writeStaticString("PUB ")
            out.writeString(subject)
            if let replyTo { out.writeStaticString(" "); out.writeString(replyTo) }
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
        if let queue { out.writeStaticString(" "); out.writeString(queue) }
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

    /// `NATS/1.0\r\nName: Value\r\n…\r\n`.
    static func encodeHeaders(_ headers: NATSHeaders) -> [UInt8] {
        var text = "NATS/1.0\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// Whether `token` can be a subject, queue group or header part: no whitespace, no CR/LF.
    static func isValidToken(_ token: String) -> Bool {
        !token.isEmpty && !token.utf8.contains { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    }
}
