import Foundation
import Logging

/// The server's settings, from the command line or, failing that, the environment.
struct Options {
    /// `--port N` or `PORT`; 0 picks a free port (the server prints the one it bound).
    var port = 8080
    /// `--charge-cost-us N` or `CHARGE_COST_US`: the simulated cost of charging one order, in microseconds.
    var chargeCost = Duration.microseconds(20)
    /// `--no-observability` or `OBSERVABILITY=0`: leave out the metrics and tracing interceptors and middleware.
    var observability = true
    /// `LOG_LEVEL` (`info` unless set).
    var logLevel = Logger.Level.info

    static let usage = "usage: OrderServer [--port N] [--charge-cost-us N] [--no-observability]"

    /// Reads the settings; exits with the usage on an argument it does not know.
    static func parse(
        _ arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Options {
        var options = Options()
        if let port = environment["PORT"].flatMap(Int.init) { options.port = port }
        if let cost = environment["CHARGE_COST_US"].flatMap(Int.init) { options.chargeCost = .microseconds(cost) }
        if environment["OBSERVABILITY"] == "0" { options.observability = false }
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
            case "--no-observability": options.observability = false
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
