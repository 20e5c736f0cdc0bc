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
        in a URL (nats://user:password@host) go to that server only. Every error ends the program
        with one line on stderr and exit status 1.

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

    var command: String
    var values: [String: String] = [:]
    var flags: Set<String> = []

    init(_ arguments: [String]) throws {
        guard let command = arguments.first, ["produce", "work"].contains(command) else {
            throw UsageError()
        }
        self.command = command
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw UsageError() }
            let name = String(argument.dropFirst(2))
            if ["broadcast", "fail", "tls-first"].contains(name) {
                flags.insert(name)
                index += 1
            } else {
                guard index + 1 < arguments.count else { throw UsageError() }
                values[name] = arguments[index + 1]
                index += 2
            }
        }
    }

    func string(_ name: String, _ fallback: String) -> String { values[name] ?? fallback }

    func int(_ name: String, _ fallback: Int) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text) else { throw UsageError() }
        return value
    }

    struct UsageError: Error {}
}
