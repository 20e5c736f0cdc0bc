// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// The command line: `produce` or `work`, then `--name value` options and `--flag` switches.
struct Options {
    static let usage = """
        usage:
          NATSBridgeDemo produce --server nats://127.0.0.1:4222 --count N [--first-id K] [--window W]
          NATSBridgeDemo work --server nats://127.0.0.1:4222 (--group NAME | --broadcast)
                              [--fail] [--fail-first K] [--max-deliver M] [--retry-delay-ms D]
                              [--ack-wait-ms A] [--handle-ms H] [--max-held N]
        common: [--storage file|memory] [--prefix eds] [--stream EDS]
                [--creds FILE | --nkey-seed-file FILE] [--tls-ca PEM] [--tls-cert PEM --tls-key PEM] [--tls-first]
        --server takes one URL or several separated by commas (nats://a:4222,nats://b:4222); credentials
        in a URL (nats://user:password@host) go to that server only. Numbers must lie in their range:
        --count 0…10^9, --first-id 0…10^18, --window 1…10^6, --max-deliver 1…1000, --fail-first 0…1000,
        --retry-delay-ms 0…3600000, --ack-wait-ms 1…86400000, --handle-ms 0…3600000, --max-held 1…10^6.
        Every error, a bad command line included, ends the program with one line on stderr and exit
        status 1; --help prints this on stdout.

        produce  dispatches N OrderPlaced events on a local bus that exports them, waits for every
                 publish ack, and prints {"produced":N,"acknowledged":…,"duplicates":…,"unacknowledged":…}.
        work     handles OrderPlaced events in a competing group (or every event with --broadcast)
                 and prints one line per handled event: {"msgId":"…","orderID":1,"pid":123};
                 first {"ready":true,"pid":…} once its consumer is set up. --fail makes every
                 handling throw, --fail-first K only the first K deliveries of each event;
                 a failure prints {"failed":"<msgId>","orderID":…,"delivery":n,"pid":…,"atMs":…}, a dead
                 letter {"deadLetter":"<msgId>","reason":"…","pid":…}. The n-th retry waits
                 --retry-delay-ms × 2^(n-1). SIGTERM or SIGINT stops it gracefully.
        """

    /// The options that take a number, and the numbers each takes: checked before anything
    /// runs, so that no value can overflow an addition or size an allocation.
    static let numbers: [String: ClosedRange<Int>] = [
        "count": 0...1_000_000_000, "first-id": 0...1_000_000_000_000_000_000, "window": 1...1_000_000,
        "max-deliver": 1...1_000, "fail-first": 0...1_000, "retry-delay-ms": 0...3_600_000,
        "ack-wait-ms": 1...86_400_000, "handle-ms": 0...3_600_000, "max-held": 1...1_000_000,
    ]
    /// The options that take any other value.
    static let texts: Set<String> = [
        "server", "group", "storage", "prefix", "stream", "creds", "nkey-seed-file", "tls-ca", "tls-cert", "tls-key",
    ]
    /// The switches.
    static let flagNames: Set<String> = ["broadcast", "fail", "tls-first"]

    var command: String
    var values: [String: String] = [:]
    var flags: Set<String> = []

    /// The options of `arguments`, every value checked.
    /// - Throws: ``UsageError``, whose message names the option at fault; it never repeats an
    ///   argument that is not an option name or a number (it might be a password).
    init(_ arguments: [String]) throws {
        guard let command = arguments.first else {
            throw UsageError("no command: the first argument is produce or work")
        }
        guard ["produce", "work"].contains(command) else {
            throw UsageError("unknown command: the first argument is produce or work")
        }
        self.command = command
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else {
                throw UsageError("argument \(index + 1) is not an option (options start with --)")
            }
            let name = String(argument.dropFirst(2))
            if Self.flagNames.contains(name) {
                flags.insert(name)
                index += 1
                continue
            }
            guard Self.texts.contains(name) || Self.numbers[name] != nil else {
                throw UsageError("\(argument.prefix(40)) is not an option")
            }
            guard index + 1 < arguments.count else { throw UsageError("\(argument) needs a value") }
            let value = arguments[index + 1]
            if let range = Self.numbers[name] {
                guard let number = Int(value), range.contains(number) else {
                    let shown =
                        value.count <= 24 && value.allSatisfy { $0.isNumber || $0 == "-" } ? ", not \(value)" : ""
                    throw UsageError(
                        "\(argument) takes a whole number from \(range.lowerBound) to \(range.upperBound)\(shown)")
                }
            }
            if name == "storage", !["file", "memory"].contains(value) {
                throw UsageError("--storage takes file or memory")
            }
            values[name] = value
            index += 2
        }
    }

    func string(_ name: String, _ fallback: String) -> String { values[name] ?? fallback }

    /// The number given for `name` (checked against its range by `init`), or `fallback`.
    func int(_ name: String, _ fallback: Int) -> Int { values[name].flatMap { Int($0) } ?? fallback }

    /// A command line that does not say what to do: its message names what is wrong.
    struct UsageError: Error, CustomStringConvertible {
        var message: String
        init(_ message: String) { self.message = message }
        var description: String { message }
    }
}
