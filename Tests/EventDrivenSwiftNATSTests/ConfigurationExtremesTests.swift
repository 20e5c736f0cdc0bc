// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing

@testable import EventDrivenSwiftNATS

/// Durations at their extremes, as a user may configure them: no trap. Before, a request
/// timeout, a fetch expiry or a retry delay beyond 292 years overflowed when turned into
/// nanoseconds and stopped the process, and a negative initial reconnection delay doubled until
/// its `Duration` overflowed.
@Suite("X4: configuration values at their extremes", .timeLimit(.minutes(2)))
struct ConfigurationExtremesTests {
    @Test("durations beyond Int64 nanoseconds saturate")
    func durationsSaturate() {
        #expect(Duration.seconds(Int64.max).saturatingNanoseconds == .max)
        #expect(Duration.seconds(Int64.min).saturatingNanoseconds == .min)
        #expect(Duration.seconds(365 * 24 * 3_600 * 1_000).saturatingNanoseconds == .max)
        #expect(Duration.milliseconds(1_500).saturatingNanoseconds == 1_500_000_000)
    }

    @Test("a negative initial or maximum reconnection delay waits zero, and doubling it never traps")
    func negativeReconnectDelays() {
        var policy = NATSClientConfiguration.Reconnect()
        policy.initialDelay = .seconds(-1)
        policy.maximumDelay = .seconds(-5)
        var backoff = _ReconnectBackoff()
        let waits = (0..<200).map { _ in backoff.failed(policy: policy) }
        #expect(waits.allSatisfy { $0 == .zero })
    }
}
