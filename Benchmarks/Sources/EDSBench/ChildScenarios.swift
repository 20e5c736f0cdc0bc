// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scenarios that need a process of their own: peak memory, heap allocations, idle CPU.
enum ChildScenario: String {
    case peakMemory = "s5"
    case allocations = "alloc"
    case sporadicAllocations = "alloc-sporadic"
    case idle = "idle"
    case placement = "s3-placement"
}

/// Runs `scenario` for `contender` in this process and prints `RESULT=<number>`.
func runChild(_ scenario: ChildScenario, contender: any Contender) {
    let value: Double
    switch scenario {
    case .peakMemory:
        _ = measureThroughput(contender, receivers: 1, events: contender.events(Config.s1Events))
        value = Double(peakResidentKilobytes())
    case .allocations:
        value = allocationsPerEvent(contender, events: contender.events(Config.s1Events))
    case .sporadicAllocations:
        value = sporadicAllocationsPerEvent(contender, events: Config.sporadicEvents)
    case .idle:
        value = idleCPUPercent(contender, receivers: Config.idleThreads)
    case .placement:
        let (p50, sameCPU) = measurePlacement(contender, pings: Config.pings)
        print("P50_US=\(p50)")
        value = sameCPU
    }
    print("RESULT=\(value)")
}

/// Starts this executable as a child for one scenario and returns its result.
func measureInChild(
    _ scenario: ChildScenario, contender: any Contender, environment extra: [String: String] = [:]
) -> Double? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    process.arguments = ["--child", scenario.rawValue, contender.name]
    process.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
    let output = Pipe()
    process.standardOutput = output
    do { try process.run() } catch { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let text = String(data: data, encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("RESULT=") {
        return Double(line.dropFirst("RESULT=".count))
    }
    return nil
}

/// The process's peak resident set (VmHWM), in kilobytes.
func peakResidentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }
    return 0
}

/// The malloc counter of `tools/malloccount.c`, present when that library is preloaded.
private func mallocCounter() -> (@convention(c) () -> UInt64)? {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "bench_malloc_count") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) () -> UInt64).self)
}

/// Heap allocations per event of S1 in steady state: one warm-up pass of `events` events,
/// then the count over a second pass. -1 when the counter is not preloaded.
func allocationsPerEvent(_ contender: any Contender, events: Int) -> Double {
    allocationsPerEvent(contender, events: events) { pipeline, tally in
        tally.arm(events)
        for value in 0..<events { pipeline.send(Tick(value: UInt64(value))) }
        tally.waitForAll()
    }
}

/// Heap allocations per event when events come one at a time, each after the receiver went idle
/// (500 µs apart, longer than any receiver lingers): every delivery starts a drain, as sporadic
/// events in an app or a server do. One warm-up pass, then the count over a second pass. -1 when
/// the counter is not preloaded.
func sporadicAllocationsPerEvent(_ contender: any Contender, events: Int) -> Double {
    allocationsPerEvent(contender, events: events) { pipeline, tally in
        for value in 0..<events {
            tally.arm(1)
            pipeline.send(Tick(value: UInt64(value)))
            tally.waitForAll()
            // The gap between two events, not synchronisation: the receiver goes idle meanwhile.
            usleep(500)
        }
    }
}

/// Runs `pass` (which sends `events` events) twice on one pipeline and returns the allocations
/// per event of the second run; -1 when the counter is not preloaded.
private func allocationsPerEvent(
    _ contender: any Contender, events: Int, pass: (Pipeline, DeliveryTally) -> Void
) -> Double {
    guard let count = mallocCounter() else { return -1 }
    let tally = DeliveryTally(receivers: 1)
    let pipeline = contender.makePipeline(receivers: 1, otherTypes: 0) { index, _ in tally.hit(index) }
    pass(pipeline, tally)
    let before = count()
    pass(pipeline, tally)
    let after = count()
    pipeline.tearDown()
    return Double(after - before) / Double(events)
}

/// CPU used by the whole process over a one-second window while `receivers` receivers are parked,
/// as a percentage of one core.
func idleCPUPercent(_ contender: any Contender, receivers: Int) -> Double {
    let tally = DeliveryTally(receivers: receivers)
    let pipeline = contender.makePipeline(receivers: receivers, otherTypes: 0) { index, _ in tally.hit(index) }
    tally.arm(1)
    pipeline.send(Tick(value: 0))
    tally.waitForAll()
    // Let any spinning before parking end; this is a settling window, not synchronisation.
    Thread.sleep(forTimeInterval: 0.05)
    let before = cpuNanoseconds()
    let start = nowNanoseconds()
    Thread.sleep(forTimeInterval: 1)
    let used = cpuNanoseconds() - before
    let elapsed = nowNanoseconds() - start
    pipeline.tearDown()
    return 100 * Double(used) / Double(elapsed)
}

private func cpuNanoseconds() -> UInt64 {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func nanoseconds(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000 }
    return nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime)
}
