// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore

/// Turns the bytes a NATS server sends into ``NATSServerFrame``s.
///
/// Pure: no I/O, no locks. Feed it what arrived with ``parse(_:)``; it consumes whole operations
/// only and leaves a partial one in the buffer for the next call.
///
/// The bytes are hostile until proven otherwise: every number is parsed with overflow checks,
/// a frame announcing more than ``maximumPayload`` bytes or a line longer than its limit is a
/// ``NATSError/protocolError(_:)`` at once (nothing of the announced size is allocated), so the
/// bytes held between two calls never exceed ``maximumFrameBytes``. A message whose header
/// block cannot be decoded is not an error of the connection: it is handed on with
/// ``NATSMessage/headerError`` and its raw block, and the bytes after it keep flowing.
struct NATSProtocolParser: Sendable {
    /// A control line longer than this without a line end is a protocol error (`INFO` lines
    /// excepted: see ``maximumInfoLength``).
    var maximumControlLineLength = 4096
    /// An `INFO` line may carry a cluster's URLs: it may be this long.
    var maximumInfoLength = 64 * 1024
    /// The most bytes (headers and body) one message may announce. The server's `max_payload`
    /// once its `INFO` has been read (``capped(maxPayload:)``); before that, its default.
    var maximumPayload = NATSProtocolParser.defaultMaximumPayload

    /// nats-server's default `max_payload`, the cap before `INFO` said otherwise.
    static let defaultMaximumPayload = 1024 * 1024
    /// nats-server refuses a `max_payload` above 64 MiB: a larger one in `INFO` is capped to it.
    static let largestMaximumPayload = 64 * 1024 * 1024

    /// The cap for a server's announced `max_payload`: at least 1 KiB, at most 64 MiB.
    static func capped(maxPayload: Int) -> Int {
        min(max(maxPayload, 1024), largestMaximumPayload)
    }

    /// The most bytes that can wait in a buffer between two calls without being a protocol error:
    /// one control line, one whole payload and its CRLF.
    var maximumFrameBytes: Int { maximumInfoLength + maximumPayload + 2 }

    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")

    /// The next complete frame in `buffer`, consuming it; `nil` when more bytes are needed.
    /// - Throws: ``NATSError/protocolError(_:)`` for bytes that are not the protocol.
    func parse(_ buffer: inout ByteBuffer) throws -> NATSServerFrame? {
        let view = buffer.readableBytesView
        guard let lineEnd = view.firstIndex(of: Self.lf) else {
            let limit =
                (view.first.map { $0 | 0x20 } == UInt8(ascii: "i")) ? maximumInfoLength : maximumControlLineLength
            if view.count > limit {
                throw NATSError.protocolError("control line longer than \(limit) bytes")
            }
            return nil
        }
        let start = view.startIndex
        var end = lineEnd
        if end > start, view[end - 1] == Self.cr { end -= 1 }
        let line = view[start..<end]
        let lineLength = lineEnd + 1 - start
        guard let first = line.first else {
            throw NATSError.protocolError("empty control line")
        }
        let isInfo = first | 0x20 == UInt8(ascii: "i")
        guard lineLength <= (isInfo ? maximumInfoLength : maximumControlLineLength) else {
            throw NATSError.protocolError("control line of \(lineLength) bytes")
        }
        switch first | 0x20 {  // lower-cased ASCII
        case UInt8(ascii: "m"), UInt8(ascii: "h"):
            return try parseMessage(line: line, lineLength: lineLength, buffer: &buffer)
        case UInt8(ascii: "p"):
            let word = Self.upper(line)
            buffer.moveReaderIndex(forwardBy: lineLength)
            if word == "PING" { return .ping }
            if word == "PONG" { return .pong }
            throw NATSError.protocolError("unknown operation starting with P")
        case UInt8(ascii: "+"):
            buffer.moveReaderIndex(forwardBy: lineLength)
            guard Self.upper(line) == "+OK" else { throw NATSError.protocolError("unknown operation") }
            return .ok
        case UInt8(ascii: "-"):
            let text = String(decoding: line, as: UTF8.self)
            buffer.moveReaderIndex(forwardBy: lineLength)
            guard text.uppercased().hasPrefix("-ERR") else { throw NATSError.protocolError("unknown operation") }
            let detail = text.dropFirst(4).trimmingCharacters(in: .whitespaces)
            return .error(detail.trimmingCharacters(in: CharacterSet(charactersIn: "'")))
        case UInt8(ascii: "i"):
            let text = String(decoding: line, as: UTF8.self)
            buffer.moveReaderIndex(forwardBy: lineLength)
            guard text.uppercased().hasPrefix("INFO") else { throw NATSError.protocolError("unknown operation") }
            let json = text.dropFirst(4).trimmingCharacters(in: .whitespaces)
            do {
                return .info(try JSONDecoder().decode(NATSServerInfo.self, from: Data(json.utf8)))
            } catch {
                throw NATSError.protocolError("INFO is not valid JSON")
            }
        default:
            throw NATSError.protocolError("unknown operation starting with byte \(first)")
        }
    }

    /// `MSG <subject> <sid> [reply] <size>` or `HMSG <subject> <sid> [reply] <header size> <total size>`.
    private func parseMessage(
        line: ByteBufferView.SubSequence, lineLength: Int, buffer: inout ByteBuffer
    ) throws -> NATSServerFrame? {
        // Word boundaries as index ranges: slicing the view per word would retain the buffer each time.
        var words: [Range<Int>] = []
        words.reserveCapacity(6)
        var wordStart: Int?
        for index in line.indices {
            let byte = line[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                if let start = wordStart { words.append(start..<index) }
                wordStart = nil
            } else if wordStart == nil {
                wordStart = index
            }
        }
        if let start = wordStart { words.append(start..<line.endIndex) }
        guard let opRange = words.first else { throw NATSError.protocolError("empty control line") }
        let op = line[opRange]
        let opName = Self.upper(op)
        let hasHeaders: Bool
        switch opName {
        case "MSG": hasHeaders = false
        case "HMSG": hasHeaders = true
        default: throw NATSError.protocolError("unknown operation starting with M or H")
        }
        let sizeCount = hasHeaders ? 2 : 1
        guard words.count == 3 + sizeCount || words.count == 4 + sizeCount else {
            throw NATSError.protocolError("\(opName) with \(words.count - 1) arguments")
        }
        guard let sid = Self.integer(line[words[2]]) else { throw NATSError.protocolError("\(opName) with a bad sid") }
        let replyTo: String? = words.count == 4 + sizeCount ? String(decoding: line[words[3]], as: UTF8.self) : nil
        // Sizes are bounded before any arithmetic: `maximumPayload` is far below `Int.max`.
        guard let total = Self.integer(line[words[words.count - 1]]) else {
            throw NATSError.protocolError("\(opName) with a bad size")
        }
        guard total <= UInt64(maximumPayload) else {
            throw NATSError.protocolError("\(opName) announces \(total) bytes, more than the maximum \(maximumPayload)")
        }
        let headerSize = hasHeaders ? Self.integer(line[words[words.count - 2]]) : 0
        guard let headerSize, headerSize <= total else {
            throw NATSError.protocolError("\(opName) with a bad header size")
        }
        let totalSize = Int(total)
        let headerLength = Int(headerSize)
        let needed = lineLength + totalSize + 2
        guard buffer.readableBytes >= needed else { return nil }
        let subject = String(decoding: line[words[1]], as: UTF8.self)
        buffer.moveReaderIndex(forwardBy: lineLength)
        var headers = NATSHeaders()
        var headerError: NATSError?
        var rawHeaders: ByteBuffer?
        if headerLength > 0, let block = Self.readPart(length: headerLength, of: &buffer) {
            do {
                headers = try Self.parseHeaders(block)
            } catch let error as NATSError {
                // This message alone is unreadable; the frame around it is sound.
                headerError = error
                rawHeaders = block
            }
        }
        guard let payload = Self.readPart(length: totalSize - headerLength, of: &buffer) else {
            throw NATSError.protocolError("\(opName) shorter than announced")
        }
        guard let trailer = buffer.readBytes(length: 2), trailer == [Self.cr, Self.lf] else {
            throw NATSError.protocolError("\(opName) payload not followed by CRLF")
        }
        var message = NATSMessage(
            subject: subject, replyTo: replyTo, headers: headers, payload: payload, subscriptionID: sid)
        if let headerError {
            message.headerError = headerError
            message.rawHeaders = rawHeaders
        }
        return .message(message)
    }

    /// The next `length` bytes of `buffer`, consumed: a slice sharing its storage when the part
    /// fills at least half of it, else a copy. A message may be held long after its read (queued,
    /// handled slowly); a slice of a few bytes would keep the whole read buffer alive with it,
    /// and that buffer may have grown to a large frame's size (an 8 MiB message read before a
    /// 30-byte one). The memory a held message keeps is at most twice its size.
    static func readPart(length: Int, of buffer: inout ByteBuffer) -> ByteBuffer? {
        guard let slice = buffer.readSlice(length: length) else { return nil }
        guard length * 2 < slice.storageCapacity else { return slice }
        var part = ByteBufferAllocator().buffer(capacity: length)
        part.writeImmutableBuffer(slice)
        return part
    }

    /// `NATS/1.0[ status[ description]]` then `Name: Value` lines, then an empty line.
    ///
    /// One pass over the raw bytes, with room for the fields made once and the names the bridge
    /// writes taken from constants: a message's headers cost the strings of their values and
    /// little more.
    static func parseHeaders(_ block: ByteBuffer) throws -> NATSHeaders {
        try block.withUnsafeReadableBytes { try parseHeaders($0) }
    }

    private static func parseHeaders(_ bytes: UnsafeRawBufferPointer) throws -> NATSHeaders {
        var lineCount = 0
        for byte in bytes where byte == lf { lineCount += 1 }
        var headers = NATSHeaders(reservingCapacity: lineCount)
        var start = 0
        var isFirst = true
        while start < bytes.count {
            var lineEnd = start
            while lineEnd < bytes.count, bytes[lineEnd] != lf { lineEnd += 1 }
            var end = lineEnd
            if end > start, bytes[end - 1] == cr { end -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            start = lineEnd + 1
            if isFirst {
                isFirst = false
                guard line.starts(with: "NATS/1.0".utf8) else {
                    throw NATSError.protocolError("headers do not start with NATS/1.0")
                }
                let statusPart = line.dropFirst(8).drop { $0 == UInt8(ascii: " ") }
                if !statusPart.isEmpty {
                    let code = statusPart.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                    // A status is three digits (100 to 999); anything else is no status line.
                    guard code.count == 3, let status = integer(code), status >= 100 else {
                        throw NATSError.protocolError("header status is not a three-digit code")
                    }
                    headers.status = Int(status)
                    let description = statusPart.dropFirst(code.count).drop { $0 == UInt8(ascii: " ") }
                    headers.statusDescription = description.isEmpty ? nil : String(decoding: description, as: UTF8.self)
                }
                continue
            }
            if line.isEmpty { continue }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw NATSError.protocolError("header line without a colon")
            }
            let name = UnsafeRawBufferPointer(rebasing: line[..<colon])
            let value = line[(colon + 1)...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            headers.append(
                knownName(name) ?? String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
        if isFirst { throw NATSError.protocolError("headers do not start with NATS/1.0") }
        return headers
    }

    /// The header names the bridge writes, as written: literals, which cost no allocation.
    private static let knownNames: [String] = [
        NATSHeaderName.messageID, NATSHeaderName.event, NATSHeaderName.eventVersion, NATSHeaderName.source,
        NATSHeaderName.traceparent, NATSHeaderName.error,
    ]

    private static func knownName(_ bytes: UnsafeRawBufferPointer) -> String? {
        for name in knownNames where name.utf8.count == bytes.count && name.utf8.elementsEqual(bytes) {
            return name
        }
        return nil
    }

    private static func upper<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(decoding: bytes, as: UTF8.self).uppercased()
    }

    /// A decimal number of at most 20 digits that fits a `UInt64`; `nil` for anything else
    /// (a sign, another byte, or a value beyond `UInt64.max`).
    static func integer<C: Collection>(_ bytes: C) -> UInt64? where C.Element == UInt8 {
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
