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
        /// The most bytes held between two reads.
        public var mostHeld = 0
        /// The bound ``mostHeld`` must stay within.
        public var bound = 0
    }

    /// Feeds `bytes` to a parser as a connection would, in reads that end at `splits` (offsets in
    /// increasing order), applying `INFO`'s `max_payload` as the channel handler does; also runs
    /// the header decoder and the publish-ack reader on the raw bytes. Never traps, whatever the
    /// bytes; the outcome says whether the bytes held stayed within the parser's bound.
    public static func feed(_ bytes: [UInt8], splits: [Int]) -> Outcome {
        var parser = NATSProtocolParser()
        var outcome = Outcome()
        var held = ByteBuffer()
        var start = 0
        for end in splits.filter({ $0 > 0 && $0 < bytes.count }) + [bytes.count] where end >= start {
            // Within one read, what was held before it plus the read itself.
            outcome.bound = max(outcome.bound, parser.maximumFrameBytes + end - start)
            held.writeBytes(bytes[start..<end])
            start = end
            outcome.mostHeld = max(outcome.mostHeld, held.readableBytes)
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
                break
            }
            // What stays for the next read: the channel handler closes the connection beyond it.
            outcome.mostHeld = max(outcome.mostHeld, held.readableBytes)
            outcome.bound = max(outcome.bound, parser.maximumFrameBytes)
            if held.readableBytes > parser.maximumFrameBytes {
                outcome.refused = true
                break
            }
        }
        _ = try? NATSProtocolParser.parseHeaders(ByteBuffer(bytes: bytes))
        _ = try? JetStreamPublishAck.parse(ByteBuffer(bytes: bytes))
        return outcome
    }

    /// One libFuzzer input: its first two bytes choose where reads end (every `n`-th byte, `n`
    /// from 1 to 65,536), the rest is what the server sends. Traps (a finding) only when the bytes
    /// held between reads exceed the parser's bound.
    public static func fuzz(_ data: UnsafeRawBufferPointer) {
        guard data.count >= 2 else { return }
        let step = Int(data[0]) << 8 | Int(data[1]) + 1
        let bytes = Array(data[2...])
        let splits = Array(stride(from: step, to: bytes.count, by: step))
        let outcome = feed(bytes, splits: splits)
        precondition(outcome.mostHeld <= outcome.bound, "held \(outcome.mostHeld) bytes, bound \(outcome.bound)")
    }
}
