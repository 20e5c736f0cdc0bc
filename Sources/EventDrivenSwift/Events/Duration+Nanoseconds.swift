// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension Duration {
    /// The duration in whole nanoseconds, clamped to `0...UInt64.max`: what the `Duration` forms
    /// of scheduling and `youngerThan` measure (a negative duration means none).
    var _nonnegativeNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ UInt64(attoseconds / 1_000_000_000)
    }

    /// The duration in whole nanoseconds, rounded toward zero and clamped to `Int64`'s range:
    /// what `youngerThan(_:)` checks, negative durations included.
    var _clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflowAgain { return seconds < 0 ? .min : .max }
        return total
    }
}
