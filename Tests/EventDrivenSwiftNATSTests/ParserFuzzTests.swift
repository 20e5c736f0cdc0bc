// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Testing

@_spi(Fuzzing) @testable import EventDrivenSwiftNATS

/// The seeded, bounded run of the parser's fuzz target (`Sources/NATSParserFuzzer`; the
/// article "Beyond One Process" gives the libFuzzer command): random and mutated frames, each
/// fed split at every position, never trap and never hold more than the parser's bound.
@Suite("NATS parser fuzzing (seeded)")
struct ParserFuzzTests {
    /// SplitMix64: the same inputs on every run and every machine.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// `HMSG` with its sizes worked out.
    static func hmsg(_ subject: String, _ sid: Int, _ reply: String?, _ block: String, _ body: String) -> String {
        let reply = reply.map { " \($0)" } ?? ""
        return
            "HMSG \(subject) \(sid)\(reply) \(block.utf8.count) \(block.utf8.count + body.utf8.count)\r\n\(block)\(body)\r\n"
    }

    static let seeds: [String] = [
        "INFO {\"server_id\":\"S\",\"version\":\"2.9.10\",\"headers\":true,\"max_payload\":1048576}\r\n",
        "INFO {\"max_payload\":2048,\"nonce\":\"abc\",\"tls_required\":true}\r\nPING\r\n",
        "PING\r\nPONG\r\n+OK\r\n-ERR 'Authorization Violation'\r\n",
        "MSG a.b 1 5\r\nhello\r\nMSG a.c 22 _INBOX.x.1 0\r\n\r\n",
        hmsg(
            "eds.orders.placed", 3, "$JS.ACK.EDS.w.1.2.3.4.5", "NATS/1.0\r\nNats-Msg-Id: abc\r\nX: 1\r\n\r\n",
            "{\"a\":1}"),
        hmsg("_INBOX.p", 4, nil, "NATS/1.0 408 Request Timeout\r\nNats-Pending: 1\r\n\r\n", ""),
        hmsg("s", 9, "r", "NATS/1.0\r\nK: V\r\n\r\n", "abc"),
    ]

    static let hostileTokens: [String] = [
        "9300000000000000000", "9223372036854775807", "18446744073709551615", "18446744073709551616",
        "99999999999999999999999", "2147483648", "-1", "0", "1048577", "67108865", "\r\n", "\n", " ", "NATS/1.0",
        ":", "HMSG", "MSG", "INFO", "{}", "\"", "\0",
    ]

    func mutate(_ input: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[position] = UInt8.random(in: 0...255, using: &generator)
            case 1:
                bytes.insert(contentsOf: Self.hostileTokens.randomElement(using: &generator)!.utf8, at: position)
            case 2 where !bytes.isEmpty:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...8, using: &generator)))
            case 3:
                // A number of the frame replaced by a hostile one.
                if let start = bytes[position...].firstIndex(where: { $0 >= 48 && $0 <= 57 }) {
                    let end = bytes[start...].firstIndex { $0 < 48 || $0 > 57 } ?? bytes.count
                    bytes.replaceSubrange(
                        start..<end, with: Self.hostileTokens[0..<10].randomElement(using: &generator)!.utf8)
                }
            default:
                bytes += Self.seeds.randomElement(using: &generator)!.utf8
            }
        }
        return bytes
    }

    /// Inputs that reach the harness parser's bound (``NATSParserFuzzing`` scales a connection's
    /// limits down: 1 KiB payloads before `INFO`, 256-byte control lines, 1 KiB `INFO` lines), the
    /// sound ones first.
    static let longInputs: [String] = [
        "MSG a.b 1 1024\r\n" + String(repeating: "x", count: 1_024) + "\r\n",
        hmsg("a.b", 2, "r", "NATS/1.0\r\nK: V\r\n\r\n", String(repeating: "y", count: 1_000)),
        "INFO {\"max_payload\":2048}\r\nMSG a.b 1 2048\r\n" + String(repeating: "x", count: 2_048) + "\r\n",
        "MSG a.b 1 1025\r\n" + String(repeating: "x", count: 2_048) + "\r\n",
        "MSG a.b 1 4096\r\n" + String(repeating: "x", count: 3_000),
        "INFO " + String(repeating: "i", count: 3_000),
        "PING" + String(repeating: "p", count: 3_000),
    ]

    @Test(
        "X4: 1,214 seeded inputs (sound, mutated, random, and long ones that reach the bound), each split at every position and fed byte by byte (136,653 feeds): no trap, nothing held beyond the parser's bound"
    )
    func seededRun() async {
        var generator = SeededGenerator(state: 27)
        var inputs: [[UInt8]] = Self.seeds.map { Array($0.utf8) }
        for _ in 0..<900 {
            inputs.append(mutate(Array(Self.seeds.randomElement(using: &generator)!.utf8), using: &generator))
        }
        for _ in 0..<300 {
            let count = Int.random(in: 0...160, using: &generator)
            inputs.append((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        inputs += Self.longInputs.map { Array($0.utf8) }
        let started = ContinuousClock.now
        var feeds = 0
        var refused = 0
        var worst: NATSParserFuzzing.Outcome?
        for input in inputs {
            let whole = NATSParserFuzzing.feed(input, splits: [])
            feeds += 1
            if whole.beyondBound > 0 { worst = whole }
            for split in 0...input.count {
                let outcome = NATSParserFuzzing.feed(input, splits: [split])
                feeds += 1
                if outcome.refused { refused += 1 }
                if outcome.beyondBound > 0 { worst = outcome }
                // However the bytes arrive, a sound stream reads the same.
                if !whole.refused, !outcome.refused {
                    #expect(outcome.frames == whole.frames, "input \(input) split at \(split)")
                }
            }
            // And one byte at a time.
            let bytewise = NATSParserFuzzing.feed(input, splits: Array(0..<input.count))
            feeds += 1
            if bytewise.beyondBound > 0 { worst = bytewise }
            // Seconds of work in a debug build: Swift's pool has one thread per processor, and
            // every other test's tasks wait while this one holds one of them.
            await Task.yield()
        }
        #expect(worst == nil, "held more than the parser's bound: \(String(describing: worst))")
        // The seeds and the sound long inputs are read as sound.
        for seed in Self.seeds + Self.longInputs[0..<3] {
            let outcome = NATSParserFuzzing.feed(Array(seed.utf8), splits: [])
            #expect(!outcome.refused && outcome.frames > 0, "\(seed.prefix(80))")
        }
        // The others are refused before the bound, however they arrive.
        for input in Self.longInputs[3...] {
            let outcome = NATSParserFuzzing.feed(Array(input.utf8), splits: Array(0..<input.utf8.count))
            #expect(outcome.refused && outcome.mostHeld <= 2_050, "\(input.prefix(80)): \(outcome)")
        }
        let elapsed = ContinuousClock.now - started
        print("parser fuzzing (seeded): \(inputs.count) inputs, \(feeds) feeds, \(refused) refused, in \(elapsed)")
        // Seeded: the same inputs, so the same count, on every run.
        #expect(inputs.count == 1_214)
        #expect(feeds == 136_653)
    }

    @Test("X4: a server announcing 2 GB and sending it in pieces is refused at the announcement")
    func announcedGigabytes() {
        let line = Array("MSG s 1 2147483648\r\n".utf8)
        let outcome = NATSParserFuzzing.feed(line + [UInt8](repeating: 120, count: 100_000), splits: [line.count])
        #expect(outcome.refused)
        #expect(outcome.beyondBound == 0 && outcome.mostHeld < 100)
    }
}
