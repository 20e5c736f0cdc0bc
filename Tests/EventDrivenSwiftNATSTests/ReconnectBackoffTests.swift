// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing

@testable import EventDrivenSwiftNATS

/// The reconnection back-off across connections: a connection lost soon after it was
/// established does not reset it (a server that accepts and drops every connection got about a
/// thousand reconnections a second).
@Suite("NATS reconnection back-off", .timeLimit(.minutes(2)))
struct ReconnectBackoffTests {
    typealias Policy = NATSClientConfiguration.Reconnect

    static let policy: Policy = {
        var policy = Policy()
        policy.initialDelay = .milliseconds(20)
        policy.maximumDelay = .milliseconds(100)
        policy.stableConnectionDuration = .seconds(1)
        return policy
    }()

    @Test(
        "X3: connections lost sooner than stableConnectionDuration wait 20, 40, 80, 100, 100 ms before the next attempt"
    )
    func shortLivedConnectionsKeepTheBackoff() {
        var backoff = _ReconnectBackoff()
        let start = ContinuousClock.now
        var waits: [Duration?] = []
        for index in 0..<5 {
            let connected = start + .seconds(index)
            backoff.connected(at: connected)
            waits.append(backoff.lost(at: connected + .milliseconds(999), policy: Self.policy))
        }
        #expect(
            waits == [.milliseconds(20), .milliseconds(40), .milliseconds(80), .milliseconds(100), .milliseconds(100)])
    }

    @Test(
        "X3: a connection that stayed up for stableConnectionDuration resets the back-off: the next attempt is at once, a failure after it waits the initial delay"
    )
    func stableConnectionResetsTheBackoff() {
        var backoff = _ReconnectBackoff()
        let start = ContinuousClock.now
        backoff.connected(at: start)
        #expect(backoff.lost(at: start + .milliseconds(10), policy: Self.policy) == .milliseconds(20))
        #expect(backoff.failed(policy: Self.policy) == .milliseconds(40))
        backoff.connected(at: start + .seconds(1))
        #expect(backoff.lost(at: start + .seconds(2), policy: Self.policy) == nil)
        #expect(backoff.failed(policy: Self.policy) == .milliseconds(20))
        #expect(backoff.failed(policy: Self.policy) == .milliseconds(40))
    }

    @Test("X3: with stableConnectionDuration zero, every lost connection is retried at once, as before the setting")
    func zeroStableDurationResetsOnEveryConnection() {
        var policy = Self.policy
        policy.stableConnectionDuration = .zero
        var backoff = _ReconnectBackoff()
        let start = ContinuousClock.now
        for index in 0..<3 {
            backoff.connected(at: start + .seconds(index))
            #expect(backoff.lost(at: start + .seconds(index), policy: policy) == nil)
        }
    }

    @Test(
        "X4: a server that closes every connection right after the handshake is not hammered: twelve connections take over 1.5 s (at least 1.8 s of jittered waits), the client stays open despite maximumAttempts"
    )
    func serverThatDropsEveryConnectionGetsTheBackoff() async throws {
        let server = try await ScriptedNATSServer(closesAfter: { line, _ in line == "PING" })
        // Shut down here if the test throws; it shuts down once (a second shutdown is an error).
        defer { Task { await server.shutdown() } }
        var configuration = try NATSClientConfiguration(server: server.url)
        // Waits of 20, 40, 80, 160, 320 and then 500 ms, each jittered to no less than half: eleven
        // of them before the twelfth connection, 1,810 ms at the least.
        configuration.reconnect.maximumDelay = .milliseconds(500)
        // Each attempt completes the handshake: no run of failures, however often it is dropped.
        configuration.reconnect.maximumAttempts = 3
        let client = NATSClient(configuration: configuration, logger: quietLogger)
        try await client.connect()
        let connected = ContinuousClock.now
        let twelve = await poll(timeout: .seconds(60)) { server.connectionCount >= 12 }
        let elapsed = ContinuousClock.now - connected
        #expect(twelve, "\(server.connectionCount) connections")
        #expect(elapsed >= .milliseconds(1_500), "twelve connections in \(elapsed)")
        #expect(!client.state.withLockedValue { $0.isClosed }, "\(String(describing: client.closeReason))")
        await client.close()
    }
}
