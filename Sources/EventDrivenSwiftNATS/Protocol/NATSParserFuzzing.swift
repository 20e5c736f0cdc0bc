// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore

/// The fuzz target of the protocol parser and the header decoder: what libFuzzer runs (see
/// `Sources/NATSParserFuzzer`) and what the test suite runs with seeded inputs. Not API.
@_spi(Fuzzing)
public enum NATSParserFuzzing {
    /// What feeding one input did.
    public struct Outcome: Sendable, Equatable {
        /// Frames parsed before the input ended or was refused.
        public var frames = 0
        /// Messages among them whose headers were undecodable.
        public var undecodableHeaders = 0
        /// Whether the parser refused the bytes (the connection would be closed).
        public var refused = false
        /// The most bytes the parser left in the buffer between two reads (after it asked for more).
        public var mostHeld = 0
        /// The most bytes it left beyond its own bound (the parser's `maximumFrameBytes` at the
        /// time): 0 unless the parser broke its promise, which is a finding.
        public var beyondBound = 0
    }

    /// The parser's limits in the harness: those of a connection scaled down (a 256-byte control
    /// line, a 1 KiB `INFO` line, and before `INFO` a 1 KiB `max_payload`, the smallest a server
    /// can announce), so that inputs of a few KiB reach the bound.
    static func harnessParser() -> NATSProtocolParser {
        var parser = NATSProtocolParser()
        parser.maximumControlLineLength = 256
        parser.maximumInfoLength = 1_024
        parser.maximumPayload = NATSProtocolParser.capped(maxPayload: 0)
        return parser
    }

    /// Feeds `bytes` to a parser as a connection would, in reads that end at `splits` (offsets in
    /// increasing order), applying `INFO`'s `max_payload` as the channel handler does; also runs
    /// the header decoder and the publish-ack reader on the raw bytes. Never traps, whatever the
    /// bytes. After each read, once the parser asks for more, the bytes it leaves in the buffer
    /// are measured against its bound (``Outcome/beyondBound``); the feeding stops there when
    /// they exceed it, as the channel handler would close the connection.
    public static func feed(_ bytes: [UInt8], splits: [Int]) -> Outcome {
        var parser = harnessParser()
        var outcome = Outcome()
        var held = ByteBuffer()
        var start = 0
        reads: for end in splits.filter({ $0 > 0 && $0 < bytes.count }) + [bytes.count] where end >= start {
            held.writeBytes(bytes[start..<end])
            start = end
            do {
                while let frame = try parser.parse(&held) {
                    outcome.frames += 1
                    switch frame {
                    case .info(let info):
                        parser.maximumPayload = NATSProtocolParser.capped(maxPayload: info.maxPayload)
                    case .message(let message):
                        if message.headerError != nil { outcome.undecodableHeaders += 1 }
                    default:
                        break
                    }
                }
            } catch {
                outcome.refused = true
                break reads
            }
            // What stays for the next read: the parser promises at most its bound.
            outcome.mostHeld = max(outcome.mostHeld, held.readableBytes)
            if held.readableBytes > parser.maximumFrameBytes {
                outcome.beyondBound = max(outcome.beyondBound, held.readableBytes - parser.maximumFrameBytes)
                break reads
            }
            held.discardReadBytes()
        }
        _ = try? NATSProtocolParser.parseHeaders(ByteBuffer(bytes: bytes))
        _ = try? JetStreamPublishAck.parse(ByteBuffer(bytes: bytes))
        return outcome
    }

    /// One libFuzzer input: its first two bytes choose where reads end (every `n`-th byte, `n`
    /// from 1 to 65,536), the rest is what the server sends. Traps (a finding) when the parser
    /// leaves more bytes between two reads than its bound.
    public static func fuzz(_ data: UnsafeRawBufferPointer) {
        guard data.count >= 2 else { return }
        let step = Int(data[0]) << 8 | Int(data[1]) + 1
        let bytes = Array(data[2...])
        let splits = Array(stride(from: step, to: bytes.count, by: step))
        let outcome = feed(bytes, splits: splits)
        precondition(
            outcome.beyondBound == 0, "held \(outcome.mostHeld) bytes, \(outcome.beyondBound) beyond the parser's bound"
        )
    }
}
