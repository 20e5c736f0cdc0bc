// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The reconnection back-off, carried from one connection to the next: a connection lost before
/// it stayed up for ``NATSClientConfiguration/Reconnect/stableConnectionDuration`` does not reset
/// it. Without that, a server that completes the handshake and closes the connection at once got
/// a new connection at once, each time, with no wait.
///
/// The waits it returns are before jitter. Pure: the client keeps it in its locked state.
struct _ReconnectBackoff: Sendable {
    /// The wait before the next attempt; `nil` while none is due (the last connection stayed up,
    /// or none was lost yet): the next failure then waits the policy's initial delay.
    private var delay: Duration?
    /// When the current connection was established; `nil` while there is none.
    private var connectedAt: ContinuousClock.Instant?

    /// A connection was established at `instant`.
    mutating func connected(at instant: ContinuousClock.Instant) {
        connectedAt = instant
    }

    /// The connection was lost at `instant`: the wait before the first new attempt, `nil` for
    /// none (it stayed up long enough: the back-off starts again from the initial delay).
    mutating func lost(at instant: ContinuousClock.Instant, policy: NATSClientConfiguration.Reconnect) -> Duration? {
        defer { connectedAt = nil }
        if let connectedAt, instant - connectedAt >= policy.stableConnectionDuration {
            delay = nil
            return nil
        }
        return next(policy)
    }

    /// An attempt failed: the wait before the next one.
    mutating func failed(policy: NATSClientConfiguration.Reconnect) -> Duration {
        next(policy)
    }

    /// The wait due now; the one after it doubles, up to the policy's maximum. A negative
    /// initial or maximum delay counts as zero (doubling a negative one overflowed).
    private mutating func next(_ policy: NATSClientConfiguration.Reconnect) -> Duration {
        let wait = max(delay ?? policy.initialDelay, .zero)
        delay = max(min(wait * 2, policy.maximumDelay), .zero)
        return wait
    }
}
