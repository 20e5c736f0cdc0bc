// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// The sizes of every scenario: SPEC PF1's S1–S7, run against PF2's baselines (the floor and
/// the peers, `Floor.swift` and `PeerContenders.swift`).
enum Config {
    static let s1Events = 200_000
    static let s2Events = 100_000
    static let s2Receivers = 10
    static let s4OtherTypes = 100
    static let pings = 10_000
    static let s6Events = 2_000_000
    static let idleThreads = 10
    static let sporadicEvents = 2_000
    static let s7Events = 100_000
}

/// The command line: `EDSBench [--runs N] [--only S1,S3,...] [--contenders A,B] [--malloc-lib PATH] [--title TEXT]`,
/// or `EDSBench --child s5|alloc|alloc-sporadic|idle|s3-placement CONTENDER` for the scenarios measured in a child process.
struct Options {
    var runs = 5
    var only: Set<String>? = nil
    var mallocLibrary: String? = nil
    var title = "EventDrivenSwift benchmarks"
    var child: (ChildScenario, String)? = nil
    var contenders: Set<String>? = nil

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--runs": runs = Int(rest.popFirst() ?? "") ?? runs
            case "--only": only = Set((rest.popFirst() ?? "").uppercased().split(separator: ",").map(String.init))
            case "--malloc-lib": mallocLibrary = rest.popFirst()
            case "--title": title = rest.popFirst() ?? title
            case "--contenders": contenders = Set((rest.popFirst() ?? "").split(separator: ",").map(String.init))
            case "--child":
                if let kind = ChildScenario(rawValue: rest.popFirst() ?? ""), let name = rest.popFirst() {
                    child = (kind, name)
                }
            default:
                FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
    }

    func wants(_ scenario: String) -> Bool { only?.contains(scenario) ?? true }

    /// Whether this run measures `contender`: named by `--contenders`, or every contender that
    /// is not opt-in when the option is absent. Never one that needs the main queue: this process
    /// measures on its main thread (such a contender runs only with `--child`).
    func selects(_ contender: any Contender) -> Bool {
        !contender.needsMainQueue && (contenders?.contains(contender.name) ?? !contender.isOptIn)
    }
}

let options = Options(CommandLine.arguments)

if let (scenario, name) = options.child {
    guard let contender = contender(named: name) else { exit(2) }
    if contender.needsMainQueue {
        // The main thread runs the main queue; another thread measures, then ends the process.
        Thread {
            runChild(scenario, contender: contender)
            exit(0)
        }.start()
        dispatchMain()
    }
    runChild(scenario, contender: contender)
    exit(0)
}

/// Runs `measure` for every contender, `options.runs` rounds, interleaving contenders within a round.
func collect(
    _ contenders: [any Contender], scenario: String, _ measure: (any Contender) -> Double?
) -> [(any Contender, Samples)] {
    let contenders = contenders.filter {
        options.selects($0) && !($0.skippedScenarios?.names.contains(scenario) ?? false)
    }
    var samples = Array(repeating: Samples(), count: contenders.count)
    for _ in 0..<options.runs {
        for (index, contender) in contenders.enumerated() {
            if let value = measure(contender) { samples[index].values.append(value) }
        }
    }
    return Array(zip(contenders, samples))
}

let startedAt = Date()
print("## \(options.title)\n")
print("- date: \(ISO8601DateFormatter().string(from: startedAt))")
print("- machine: \(machineDescription())")
print("- command: `\(CommandLine.arguments.joined(separator: " "))`")
print("- median of \(options.runs) runs per figure; contenders interleaved within each run")
print("- `÷ floor`: the figure divided by the floor's; `vs X`: how many times better than X (> 1: ours is better)")
for contender in allContenders where contender.eventDivisor > 1 && options.selects(contender) {
    print("- \(contender.name): 1/\(contender.eventDivisor) of the events in S1, S2, S4, S5 and the allocation count")
}
for contender in allContenders where options.selects(contender) {
    if let (names, reason) = contender.skippedScenarios {
        print("- \(contender.name) sits out \(names.sorted().joined(separator: ", ")): \(reason)")
    }
}
print()

/// The contenders of S3: the asynchronous ones that do not sit it out.
let asynchronous = allContenders.filter {
    !$0.isSynchronous && options.selects($0) && !($0.skippedScenarios?.names.contains("S3") ?? false)
}
let synchronous = allContenders.filter { $0.isSynchronous || $0.kind == .floor }

if options.wants("S1") {
    let results = collect(allContenders, scenario: "S1") {
        measureThroughput($0, receivers: 1, events: $0.events(Config.s1Events))
    }
    printComparison(
        title: "S1: one producer → one receiver, \(Config.s1Events) queued events", unit: "M events/s",
        direction: .higherIsBetter, results: results, scale: 1e6)
}

if options.wants("S2") {
    let results = collect(allContenders, scenario: "S2") {
        measureThroughput($0, receivers: Config.s2Receivers, events: $0.events(Config.s2Events))
    }
    printComparison(
        title: "S2: fan-out to \(Config.s2Receivers) receivers, \(Config.s2Events) events",
        unit: "M deliveries/s", direction: .higherIsBetter, results: results, scale: 1e6)
}

if options.wants("S3") {
    var p50: [(any Contender, Samples)] = []
    var p99: [(any Contender, Samples)] = []
    var maximum: [(any Contender, Samples)] = []
    var runs = Array(repeating: [LatencySample](), count: asynchronous.count)
    for _ in 0..<options.runs {
        for (index, contender) in asynchronous.enumerated() {
            runs[index].append(measureLatency(contender, pings: Config.pings))
        }
    }
    for (index, contender) in asynchronous.enumerated() {
        p50.append((contender, Samples(values: runs[index].map(\.p50))))
        p99.append((contender, Samples(values: runs[index].map(\.p99))))
        maximum.append((contender, Samples(values: runs[index].map(\.max))))
    }
    let title = "S3: ping-pong latency, dispatch → callback, \(Config.pings) pings per run"
    printComparison(title: "\(title): p50", unit: "µs", direction: .lowerIsBetter, results: p50, scale: 1e3)
    printComparison(title: "\(title): p99", unit: "µs", direction: .lowerIsBetter, results: p99, scale: 1e3)
    printComparison(title: "\(title): max", unit: "µs", direction: .lowerIsBetter, results: maximum, scale: 1e3)
}

// Opt-in (`--only S3P`): S3's ping-pong in this process, with where the handler ran
// (``measurePlacement(_:pings:)``): a contender whose handler shares the producer's core pays two
// context switches per ping, which S3's p50 shows but does not explain.
if options.only?.contains("S3P") == true {
    let title = "S3P: S3 in this process, with where the handler ran"
    var p50: [(any Contender, Samples)] = asynchronous.map { ($0, Samples()) }
    var sameCPU: [(any Contender, Samples)] = asynchronous.map { ($0, Samples()) }
    for _ in 0..<options.runs {
        for (index, contender) in asynchronous.enumerated() {
            let (latency, share) = measurePlacement(contender, pings: Config.pings)
            p50[index].1.values.append(latency)
            sameCPU[index].1.values.append(share)
        }
    }
    printComparison(title: "\(title): p50", unit: "µs", direction: .lowerIsBetter, results: p50, ratios: false)
    printComparison(
        title: "\(title): share of pings whose handler ran on the producer's CPU", unit: "share",
        direction: .lowerIsBetter, results: sameCPU, ratios: false)
}

if options.wants("S4") {
    let routed = allContenders.filter { $0.routesByType || $0.kind == .floor }
    // Each run measures S4 and then S1 again for the same contender, back to back, so that the
    // ratio of the two compares figures taken in the same seconds of this noisy machine.
    var withoutOthers: [String: Samples] = [:]
    let results = collect(routed, scenario: "S4") { contender in
        let events = contender.events(Config.s1Events)
        let loaded = measureThroughput(contender, receivers: 1, events: events, otherTypes: Config.s4OtherTypes)
        let plain = measureThroughput(contender, receivers: 1, events: events)
        withoutOthers[contender.name, default: Samples()].values.append(loaded / plain)
        return loaded
    }
    printComparison(
        title: "S4: S1 with \(Config.s4OtherTypes) other event types registered (the floor routes nothing)",
        unit: "M events/s", direction: .higherIsBetter, results: results, scale: 1e6)
    print("### S4 ÷ S1: each run's S4 figure divided by an S1 run of the same contender right after it\n")
    printTable(
        ["contender", "median S4 ÷ S1", "range"],
        results.map { contender, _ in
            let ratios = withoutOthers[contender.name] ?? Samples()
            return [contender.name, String(format: "%.2f", ratios.median), ratios.range]
        })
}

if options.wants("S5") {
    let results = collect(allContenders, scenario: "S5") { measureInChild(.peakMemory, contender: $0) }
    printComparison(
        title: "S5: peak RSS (VmHWM) of a process running S1 once", unit: "MB", direction: .lowerIsBetter,
        results: results, scale: 1024)
    if let floor = results.first(where: { $0.0.kind == .floor })?.1.median {
        let rows = results.map { [$0.0.name, format(($0.1.median - floor) / 1024)] }
        printTable(["contender", "MB above the floor's process"], rows)
    }
}

if options.wants("S6") {
    let results = collect(synchronous, scenario: "S6") { measureSynchronousCost($0, events: Config.s6Events) }
    printComparison(
        title: "S6: synchronous dispatch to one handler (the floor: a closure called under a lock)",
        unit: "ns/event", direction: .lowerIsBetter, results: results)
}

if options.wants("S7") {
    print("### S7: pool of 2 threads vs one thread, ~1 µs of work per event, \(Config.s7Events) events\n")
    var samples = Array(repeating: Samples(), count: PoolSetup.allCases.count)
    for _ in 0..<options.runs {
        for (index, setup) in PoolSetup.allCases.enumerated() {
            samples[index].values.append(measurePool(setup, events: Config.s7Events))
        }
    }
    let single = samples[0].median
    let rows = zip(PoolSetup.allCases, samples).map { setup, sample in
        [
            setup.rawValue, format(sample.median / 1e6), Samples(values: sample.values.map { $0 / 1e6 }).range,
            formatRatio(sample.median / single),
        ]
    }
    printTable(["contender", "median M events/s", "range", "÷ one thread"], rows)
}

if options.wants("IDLE") {
    let parked = allContenders.filter { !$0.isSynchronous }
    let results = collect(parked, scenario: "IDLE") { measureInChild(.idle, contender: $0) }
    printComparison(
        title: "Idle: CPU of a process with \(Config.idleThreads) parked receivers, over 1 s",
        unit: "% of a core", direction: .lowerIsBetter, results: results, ratios: false)
}

if options.wants("ALLOC") {
    if let library = options.mallocLibrary {
        let results = collect(allContenders, scenario: "ALLOC") {
            measureInChild(.allocations, contender: $0, environment: ["LD_PRELOAD": library])
        }
        printComparison(
            title: "Heap allocations per queued event, S1 steady state (malloc counter preloaded)",
            unit: "allocations/event", direction: .lowerIsBetter, results: results, ratios: false)
        let sporadic = collect(allContenders, scenario: "ALLOC") {
            measureInChild(.sporadicAllocations, contender: $0, environment: ["LD_PRELOAD": library])
        }
        printComparison(
            title:
                "Heap allocations per event, \(Config.sporadicEvents) events one at a time, each after the receiver went idle (malloc counter preloaded)",
            unit: "allocations/event", direction: .lowerIsBetter, results: sporadic, ratios: false)
    } else {
        print("### Allocations: skipped (pass --malloc-lib PATH to the built tools/malloccount.so)\n")
    }
}

print("Total time: \(format(Date().timeIntervalSince(startedAt))) s")
