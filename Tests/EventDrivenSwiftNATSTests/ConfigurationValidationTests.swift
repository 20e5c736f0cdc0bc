// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// Configuration values the bridge cannot work with are refused with
/// ``NATSBridgeError/invalidConfiguration(_:)`` before anything is sent. Before, a wildcard in
/// `prefix` was taken (its publishes went out on a subject with a wildcard), a dotted
/// `streamName` failed `run()` after the JetStream API's 5 s timeout, and a `fetchExpiry` of zero
/// or less started a bridge that imported nothing, without an error.
@Suite("X5: invalid bridge configuration is refused at once", .serialized, .timeLimit(.minutes(2)))
struct ConfigurationValidationTests {
    /// Each invalid configuration, with the value its error must name.
    static func invalidConfigurations() -> [(value: String, configuration: NATSBridgeConfiguration)] {
        var cases: [(String, NATSBridgeConfiguration)] = []
        func add(_ value: String, _ change: (inout NATSBridgeConfiguration) -> Void) {
            var configuration = NATSBridgeConfiguration()
            configuration.storage = .memory
            change(&configuration)
            cases.append((value, configuration))
        }
        for prefix in ["eds.*", "eds.>", ">", "*", "a b", "", "eds.", ".eds", "a..b", "a\r\nb"] {
            add(prefix.debugDescription) { $0.prefix = prefix }
        }
        for name in ["a.b", "S*", "S>", "S T", "", "a/b", "a\\b", "S\tT"] {
            add(name.debugDescription) { $0.streamName = name }
        }
        add("DL.X".debugDescription) {
            $0.deadLetterStream = .init()
            $0.deadLetterStream?.name = "DL.X"
        }
        add("dead.*".debugDescription) {
            $0.deadLetterStream = .init()
            $0.deadLetterStream?.subjectPrefix = "dead.*"
        }
        for expiry in [Duration.zero, .seconds(-1)] {
            add("fetchExpiry \(expiry)") { $0.consumers.fetchExpiry = expiry }
            add("reopenDelay \(expiry)") { $0.consumers.reopenDelay = expiry }
        }
        let belowReopenDelay = Duration.milliseconds(50)
        add("maxReopenDelay \(belowReopenDelay)") { $0.consumers.maxReopenDelay = belowReopenDelay }
        return cases
    }

    /// `true` when `error` is `invalidConfiguration` naming `value`.
    static func names(_ error: any Error, _ value: String) -> Bool {
        guard case .invalidConfiguration(let detail) = error as? NATSBridgeError else { return false }
        return detail.contains(value)
    }

    @Test("the initializer that takes a server refuses each invalid value, naming it")
    func initializerRefuses() throws {
        for (value, configuration) in Self.invalidConfigurations() {
            let error = #expect(throws: (any Error).self, "\(value) was accepted") {
                _ = try NATSBridge(
                    bus: EventBus(label: "validation"), events: try registry(), server: "nats://127.0.0.1:1",
                    configuration: configuration, logger: quietLogger)
            }
            #expect(error.map { Self.names($0, value) } == true, "\(value): \(String(describing: error))")
        }
        // Valid values at their edges are taken.
        var valid = NATSBridgeConfiguration()
        valid.prefix = "a.b-c_d"
        valid.streamName = "EDS_2-x"
        valid.consumers.fetchExpiry = .nanoseconds(1)
        valid.consumers.reopenDelay = .nanoseconds(1)
        valid.consumers.maxReopenDelay = .nanoseconds(1)
        #expect(throws: Never.self) { try valid.validate() }
        _ = try NATSBridge(
            bus: EventBus(label: "validation"), events: try registry(), server: "nats://127.0.0.1:1",
            configuration: valid, logger: quietLogger)
    }

    @Test("run() over any transport refuses each invalid value at once, before it connects")
    func runRefusesBeforeConnecting() async throws {
        try await withNATSServer { server in
            for (value, configuration) in Self.invalidConfigurations() {
                let client = NATSClient(
                    configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger)
                let bridge = NATSBridge(
                    bus: EventBus(label: "validation"), events: try registry(), configuration: configuration,
                    transport: NATSJetStreamTransport(client: client, configuration: configuration), logger: quietLogger
                )
                try bridge.listen(OrderPlaced.self, mode: .group("workers")) { _, _ in }
                let started = ContinuousClock.now
                let run = await outcome(within: .seconds(4)) { try await bridge.run() }
                let elapsed = ContinuousClock.now - started
                #expect(run.error.map { Self.names($0, value) } == true, "\(value): run() \(run) after \(elapsed)")
                // Well under the JetStream API's 5 s timeout, with room for a loaded machine.
                #expect(elapsed < .seconds(3), "\(value): \(run) after \(elapsed)")
                #expect(client.statistics.connects == 0, "\(value): the client connected")
                let waited = await outcome(within: .seconds(10)) { try await bridge.waitUntilRunning() }
                #expect(waited.error.map { Self.names($0, value) } == true, "\(value): waitUntilRunning \(waited)")
                bridge.shutdown()
                _ = await outcome(within: .seconds(5)) { try await bridge.run() }
                await client.close()
            }
        }
    }

    @Test("a publish through a bridge with a wildcard prefix, not run, fails at once and sends nothing")
    func wildcardPrefixPublishSendsNothing() async throws {
        try await withNATSServer { server in
            let watcher = try await connectedClient(server)
            let seen = Collected<String>()
            try watcher.subscribe(to: ">") { seen.append($0.subject) }
            try await watcher.flush()
            var configuration = NATSBridgeConfiguration()
            configuration.prefix = "eds.*"
            configuration.consumers.publishRetryWindow = .zero
            let client = try await connectedClient(server)
            let bridge = NATSBridge(
                bus: EventBus(label: "validation"), events: try registry(), configuration: configuration,
                transport: NATSJetStreamTransport(client: client, configuration: configuration), logger: quietLogger)
            let published = await outcome(within: .seconds(10)) {
                try await bridge.publishAndWait(OrderPlaced(orderID: 1, customerID: 1, amount: 1))
            }
            guard case .publishFailed(_, let event, let reason) = published.error as? NATSBridgeError else {
                Issue.record("a publish on eds.*.orders.placed: \(published)")
                await client.close()
                await watcher.close()
                return
            }
            #expect(event == "orders.placed" && reason.contains("eds.*.orders.placed"), "\(reason)")
            try await client.flush()
            try await watcher.flush()
            #expect(!seen.values.contains { $0.hasPrefix("eds") }, "sent: \(seen.values)")
            #expect(bridge.statistics.publishFailures == 1 && bridge.statistics.publishRetries == 0)
            await client.close()
            await watcher.close()
        }
    }
}
