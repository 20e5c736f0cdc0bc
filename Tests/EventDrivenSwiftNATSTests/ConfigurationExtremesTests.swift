// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

@testable import EventDrivenSwiftNATS

/// Durations at their extremes, as a user may configure them: no trap. Before, a request
/// timeout, a fetch expiry or a retry delay beyond 292 years overflowed when turned into
/// nanoseconds and stopped the process, and a negative initial reconnection delay doubled until
/// its `Duration` overflowed. A bridge stopped while a fetch with a very long expiry was
/// outstanding waited for the whole expiry.
@Suite("X4: configuration values at their extremes", .timeLimit(.minutes(2)))
struct ConfigurationExtremesTests {
    @Test("durations beyond Int64 nanoseconds saturate")
    func durationsSaturate() {
        #expect(Duration.seconds(Int64.max).saturatingNanoseconds == .max)
        #expect(Duration.seconds(Int64.min).saturatingNanoseconds == .min)
        #expect(Duration.seconds(365 * 24 * 3_600 * 1_000).saturatingNanoseconds == .max)
        #expect(Duration.milliseconds(1_500).saturatingNanoseconds == 1_500_000_000)
    }

    @Test("a configured wait of any length is slept without a trap: at most Int64.max nanoseconds, at least zero")
    func sleepableDurations() async {
        #expect(Duration.seconds(Int64.max).sleepable == .nanoseconds(Int64.max))
        #expect(Duration.seconds(-5).sleepable == .zero)
        #expect(Duration.milliseconds(1_500).sleepable == .milliseconds(1_500))
        // `Task.sleep(for: .seconds(Int64.max))` traps when it hands its deadline to the
        // executor; one cancelled before it starts throws first, so the sleep starts uncancelled.
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        let sleeper = Task {
            starting.yield()
            try await Task.sleep(for: Duration.seconds(Int64.max).sleepable)
        }
        for await _ in started { break }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
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

extension ConfigurationExtremesTests {
    @Test(
        "a fetch expiry of 1,000 years with fetchBatch 0: the event is handled, and the bridge stops after its 2 s grace, without waiting for the fetch"
    )
    func hugeFetchExpiryStops() async throws {
        try await withNATSServer { server in
            var configuration = NATSBridgeConfiguration()
            configuration.storage = .memory
            configuration.consumers.fetchBatch = 0
            configuration.consumers.fetchExpiry = .seconds(365 * 24 * 3_600 * 1_000)
            let worker = try NATSBridge(
                bus: EventBus(label: "patient"), events: try registry(), server: server.url,
                configuration: configuration, logger: quietLogger)
            let handled = Collected<Int>()
            try worker.listen(OrderPlaced.self, mode: .group("workers")) { event, _ in handled.append(event.orderID) }
            let running = Task { try await worker.run() }
            try await worker.waitUntilRunning()
            try await worker.publishAndWait(OrderPlaced(orderID: 3, customerID: 1, amount: 1))
            #expect(await poll(timeout: .seconds(60)) { handled.values == [3] }, "\(handled.values)")
            // A fetch is outstanding, which the server would end in 1,000 years: the shutdown
            // does not wait for it.
            worker.shutdown()
            let started = ContinuousClock.now
            let stopped = await outcome(within: .seconds(60)) { try await running.value }
            let elapsed = ContinuousClock.now - started
            #expect("\(stopped)" == "returned", "the shutdown \(stopped) after \(elapsed)")
            // The stop's grace for an outstanding fetch is 2 s. The bound leaves room for a loaded
            // machine (in a full `swift test` run, CPU-bound tests beside it made this shutdown
            // take 5.6 s): what it tells apart is a shutdown that waits for the fetch.
            #expect(elapsed < .seconds(30), "the shutdown took \(elapsed)")
        }
    }
}
