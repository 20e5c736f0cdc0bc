// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Logging

/// The server's settings, from the command line or, failing that, the environment.
struct Options {
    /// `--port N` or `PORT`; 0 picks a free port (the server prints the one it bound).
    var port = 8080
    /// `--charge-cost-us N` or `CHARGE_COST_US`: the simulated cost of charging one order, in microseconds.
    var chargeCost = Duration.microseconds(20)
    /// `--observability all|interceptors|none` or `OBSERVABILITY`: what reports metrics and spans.
    var observability = Observability.all
    /// `LOG_LEVEL` (`info` unless set).
    var logLevel = Logger.Level.info

    /// What reports metrics and spans.
    enum Observability: String {
        /// The bus's interceptors and Hummingbird's middleware.
        case all
        /// The bus's interceptors only (for the benchmark: their cost alone).
        case interceptors
        /// Neither (`--no-observability` says the same).
        case none
    }

    static let usage =
        "usage: OrderServer [--port N] [--charge-cost-us N] [--observability all|interceptors|none | --no-observability]"

    /// Reads the settings; exits with the usage on an argument it does not know.
    static func parse(
        _ arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Options {
        var options = Options()
        if let port = environment["PORT"].flatMap(Int.init) { options.port = port }
        if let cost = environment["CHARGE_COST_US"].flatMap(Int.init) { options.chargeCost = .microseconds(cost) }
        if let observability = environment["OBSERVABILITY"].flatMap(Observability.init(rawValue:)) {
            options.observability = observability
        }
        if let level = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) { options.logLevel = level }
        var rest = arguments[...]
        func number() -> Int {
            guard let value = rest.popFirst().flatMap(Int.init) else { fail() }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--port": options.port = number()
            case "--charge-cost-us": options.chargeCost = .microseconds(number())
            case "--observability":
                guard let value = rest.popFirst().flatMap(Observability.init(rawValue:)) else { fail() }
                options.observability = value
            case "--no-observability": options.observability = .none
            default: fail()
            }
        }
        return options
    }
}

private func fail() -> Never {
    FileHandle.standardError.write(Data((Options.usage + "\n").utf8))
    exit(64)
}

/// Writes `line` to the standard output at once (unbuffered, also into a pipe): scripts wait for
/// "listening on" and read the "stopped:" line.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
