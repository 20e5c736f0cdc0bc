// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// Every figure of one contender in one scenario, one per run.
struct Samples {
    var values: [Double] = []

    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var range: String {
        guard let low = values.min(), let high = values.max() else { return "" }
        return "\(format(low))–\(format(high))"
    }
}

/// Whether bigger figures are better (throughput) or smaller ones (latency, cost, memory).
enum Direction {
    case higherIsBetter
    case lowerIsBetter
}

func format(_ value: Double) -> String {
    if value.isNaN { return "—" }
    if abs(value) >= 100 { return String(format: "%.0f", value) }
    if abs(value) >= 10 { return String(format: "%.1f", value) }
    return String(format: "%.2f", value)
}

func formatRatio(_ value: Double) -> String {
    value.isFinite ? String(format: "%.2f×", value) : "—"
}

/// How many times better `ours` is than `theirs` (> 1: ours is better).
func advantage(_ ours: Double, over theirs: Double, _ direction: Direction) -> Double {
    direction == .higherIsBetter ? ours / theirs : theirs / ours
}

/// Prints a markdown table.
func printTable(_ header: [String], _ rows: [[String]]) {
    print("| " + header.joined(separator: " | ") + " |")
    print("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
    for row in rows { print("| " + row.joined(separator: " | ") + " |") }
    print("")
}

/// A table of one figure per contender: the median and range of the runs, the figure divided by
/// the floor's, and for our modes how many times better than each peer.
func printComparison(
    title: String, unit: String, direction: Direction, results: [(any Contender, Samples)], scale: Double = 1,
    ratios: Bool = true
) {
    print("### \(title)\n")
    let floor = results.first { $0.0.kind == .floor }?.1.median ?? .nan
    let peers = ratios ? results.filter { $0.0.kind == .peer } : []
    var header = ["contender", "median \(unit)", "range"] + (ratios ? ["÷ floor"] : [])
    header += peers.map { "vs \($0.0.name)" }
    var rows: [[String]] = []
    for (contender, samples) in results {
        let median = samples.median
        var row = [
            contender.name, format(median / scale),
            Samples(values: samples.values.map { $0 / scale }).range,
        ]
        if ratios { row.append(formatRatio(median / floor)) }
        for (_, peer) in peers {
            row.append(contender.kind == .ours ? formatRatio(advantage(median, over: peer.median, direction)) : "")
        }
        rows.append(row)
    }
    printTable(header, rows)
}

/// The machine, for the header of a run.
func machineDescription() -> String {
    let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
    let model =
        cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
        .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
        ?? "unknown"
    return "nproc \(ProcessInfo.processInfo.activeProcessorCount), CPU \(model)"
}
