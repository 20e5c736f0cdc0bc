// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension Duration {
    /// This duration in nanoseconds, as NATS and JetStream take them; one beyond `Int64` (292
    /// years) is `Int64.max` (or `.min`), not an overflow: a configured duration never traps.
    var saturatingNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflow, !carry else { return seconds < 0 ? .min : .max }
        return sum
    }

    /// This duration as `Task.sleep` takes it: between zero and `Int64.max` nanoseconds (292
    /// years). `Task.sleep` traps on a deadline beyond that, and a configured duration (an ack
    /// wait, a reconnection delay) may be any value.
    var sleepable: Duration { .nanoseconds(Swift.max(0, saturatingNanoseconds)) }
}
