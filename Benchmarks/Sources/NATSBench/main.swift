// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

// NATS scenario of the benchmarks: one producer process → one worker process through JetStream
// (memory and file storage): events/s exported with asynchronous publish acks, events/s consumed
// with acks in a competing group (a backlog drained), p50/p99 end-to-end latency (paced); and in
// the same run NATS core publish/subscribe through our client with the same payloads.
//   swift run -c release NATSBench [--runs 3] [--count 100000] [--samples 2000] [--pace-us 1000] [--cluster]
// `--cluster` runs the JetStream paths against a three-node cluster on loopback with an R3 stream
// (the clients given all three URLs); the raw baseline stays on one server.

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count else { return fallback }
    return Int(arguments[index + 1]) ?? fallback
}
func string(_ name: String, _ fallback: String) -> String {
    guard let index = arguments.firstIndex(of: "--" + name), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}

let role = arguments.count > 1 ? arguments[1] : "main"
let count = option("count", 100_000)
switch role {
case "producer":
    try await runProducer(
        server: string("server", ""), storage: string("storage", "memory"), count: count,
        paceMicroseconds: option("pace-us", 0))
case "worker":
    try await runWorker(server: string("server", ""), storage: string("storage", "memory"), count: count)
case "raw":  // the baseline alone, against a server of its own (for profiling)
    let server = try await Server()
    let cpu = cpuMicroseconds(children: false)
    let figures = try await rawBaseline(server: server.url, count: count, latencySamples: 100, paceMicroseconds: 1_000)
    print("raw: \(figures), CPU µs/message \((cpuMicroseconds(children: false) - cpu) / Double(count + 100))")
    server.stop()
default:
    try await runAll()
}

struct Figures {
    var exported: [Double] = [], consumed: [Double] = [], p50: [Double] = [], p99: [Double] = []
    /// CPU µs per event of the producer process and of the worker process (raw: both clients).
    var producerCPU: [Double] = [], workerCPU: [Double] = []
}

func runAll() async throws {
    let runs = option("runs", 3)
    let samples = option("samples", 2_000)
    let pace = option("pace-us", 1_000)
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    var jetStream: [String: Figures] = ["memory": Figures(), "file": Figures()]
    var raw = Figures()
    let started = Date()
    let load = loadAverage()
    for run in 1...runs {
        for storage in ["memory", "file"] {
            let server = try await Server()
            defer { server.stop() }
            let cluster = arguments.contains("--cluster") ? try await Cluster() : nil
            defer { cluster?.stop() }
            let common = ["--server", cluster?.url ?? server.url, "--storage", storage]
            // Export: a producer alone builds a backlog.
            var cpu = cpuMicroseconds(children: true)
            let producer = try Child(me, ["producer", "--count", String(count)] + common)
            producer.process.waitUntilExit()
            let exported = try await result(producer, "producer")
            let producerCPU = (cpuMicroseconds(children: true) - cpu) / Double(count)
            // Consume: a worker drains the backlog with acks.
            cpu = cpuMicroseconds(children: true)
            let worker = try Child(me, ["worker", "--count", String(count)] + common)
            worker.process.waitUntilExit()
            let consumed = try await result(worker, "worker")
            let workerCPU = (cpuMicroseconds(children: true) - cpu) / Double(count)
            // Latency: a live worker, a paced producer.
            let live = try Child(me, ["worker", "--count", String(samples)] + common)
            _ = await live.wait(timeout: .seconds(30)) { $0.contains { $0.contains("\"ready\":true") } }
            let paced = try Child(me, ["producer", "--count", String(samples), "--pace-us", String(pace)] + common)
            paced.process.waitUntilExit()
            live.process.waitUntilExit()
            let latency = try await result(live, "worker")
            var figures = jetStream[storage]!
            figures.exported.append(Double(count) / exported["seconds"]!)
            figures.consumed.append(Double(count) / consumed["seconds"]!)
            figures.p50.append(latency["p50"]!)
            figures.p99.append(latency["p99"]!)
            figures.producerCPU.append(producerCPU)
            figures.workerCPU.append(workerCPU)
            jetStream[storage] = figures
            if storage == "memory" {
                let cpu = cpuMicroseconds(children: false)
                let baseline = try await rawBaseline(
                    server: server.url, count: count, latencySamples: samples, paceMicroseconds: pace)
                // Both clients, over the throughput and the paced latency messages.
                raw.workerCPU.append((cpuMicroseconds(children: false) - cpu) / Double(count + samples))
                raw.exported.append(baseline.rate)
                raw.consumed.append(baseline.rate)
                raw.p50.append(baseline.p50)
                raw.p99.append(baseline.p99)
            }
            FileHandle.standardError.write(Data("run \(run) \(storage) done\n".utf8))
        }
    }
    report(jetStream: jetStream, raw: raw, runs: runs, samples: samples, pace: pace, started: started, load: load)
}

func result(_ child: Child, _ role: String) async throws -> [String: Double] {
    // The last line can still be in the pipe when the process has exited.
    _ = await child.wait(timeout: .seconds(10)) { $0.contains { $0.contains("\"seconds\"") } }
    guard let line = child.out.last(where: { $0.contains("\"seconds\"") }),
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    else { throw BenchError.childFailed(role + ": " + child.err.suffix(5).joined(separator: "\n")) }
    return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
}

/// The load averages (1, 5, 15 minutes) now, from `/proc/loadavg`.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3)
        .joined(separator: " ") ?? "unknown"
}

/// What `nats-server --version` prints, or "nats-server (version unknown)".
func serverVersion() -> String {
    let executable = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    guard let executable else { return "nats-server (not found)" }
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["--version"]
    process.standardOutput = output
    guard (try? process.run()) != nil else { return "nats-server (version unknown)" }
    process.waitUntilExit()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
}

func report(
    jetStream: [String: Figures], raw: Figures, runs: Int, samples: Int, pace: Int, started: Date, load: String
) {
    func cell(_ values: [Double], _ digits: Int = 0) -> String {
        let format = "%.\(digits)f"
        return String(format: format, median(values)) + " (" + String(format: format, values.min() ?? 0) + "–"
            + String(format: format, values.max() ?? 0) + ")"
    }
    let rawRate = median(raw.exported)
    print("- date: \(ISO8601DateFormatter().string(from: started))")
    print(
        "- machine: nproc \(ProcessInfo.processInfo.activeProcessorCount), \(serverVersion()) on loopback, "
            + "load average at the start \(load)")
    if arguments.contains("--cluster") {
        print("- JetStream: a three-node cluster on loopback, R3 stream; the raw baseline on one server")
    }
    print(
        "- command: `cd Benchmarks && swift run -c release NATSBench --runs \(runs) --count \(count)"
            + (arguments.contains("--cluster") ? " --cluster" : "") + "`")
    print("- median (min–max) of \(runs) runs; latency: \(samples) events one every \(pace) µs")
    print("")
    print(
        "| path | exported events/s (async acks) | consumed events/s (group, acks) | p50 µs | p99 µs "
            + "| consumed ÷ raw | producer CPU µs/event | worker CPU µs/event |")
    print("|---|---|---|---|---|---|---|---|")
    for storage in ["memory", "file"] {
        let figures = jetStream[storage]!
        print(
            "| JetStream, \(storage) storage | \(cell(figures.exported)) | \(cell(figures.consumed)) | "
                + "\(cell(figures.p50)) | \(cell(figures.p99)) | "
                + String(format: "%.2f", median(figures.consumed) / rawRate) + " | "
                + "\(cell(figures.producerCPU, 1)) | \(cell(figures.workerCPU, 1)) |")
    }
    print(
        "| NATS core pub/sub (raw baseline) | \(cell(raw.exported)) | \(cell(raw.consumed)) | \(cell(raw.p50)) | "
            + "\(cell(raw.p99)) | 1.00 | both clients, one process: \(cell(raw.workerCPU, 1)) | |")
}
