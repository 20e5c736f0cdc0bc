// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension Duration {
    /// The duration in whole nanoseconds, clamped to `0...UInt64.max`: what the `Duration` forms
    /// of scheduling and `youngerThan` measure (a negative duration means none).
    var _nonnegativeNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        // Saturating: 18,446,744,073.8 s wrapped to 0.09 s before (`AdversarialExtremeValuesTests`).
        let (total, overflowAgain) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return overflow || overflowAgain ? .max : total
    }

    /// The duration in whole nanoseconds, rounded toward zero and clamped to `Int64`'s range:
    /// what `youngerThan(_:)` checks, negative durations included. A duration that is not zero
    /// never becomes zero (which means "no limit" there): less than a nanosecond either way counts
    /// as one nanosecond, with its sign.
    var _clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflowAgain { return seconds < 0 ? .min : .max }
        if total == 0 && attoseconds != 0 { return attoseconds < 0 ? -1 : 1 }
        return total
    }
}
