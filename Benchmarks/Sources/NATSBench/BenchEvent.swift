// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation

/// The demo's `OrderPlaced` payload plus the monotonic time it was sent, for latency.
struct BenchOrder: Eventable, Codable {
    var orderID: Int
    var customerID: Int
    var amount: Double
    var sentAt: UInt64
}

/// Nanoseconds on the system-wide monotonic clock: comparable between processes of one machine.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Writes one line to stdout at once.
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// p-th percentile (0...100) of `samples`, in microseconds.
func percentile(_ samples: [UInt64], _ p: Double) -> Double {
    guard !samples.isEmpty else { return .nan }
    let sorted = samples.sorted()
    let index = min(sorted.count - 1, Int((Double(sorted.count) * p / 100).rounded(.down)))
    return Double(sorted[index]) / 1_000
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

/// CPU time (user + system), in microseconds, of this process (`RUSAGE_SELF`) or of its
/// children that have exited and been waited for (`RUSAGE_CHILDREN`).
func cpuMicroseconds(children: Bool) -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
}
