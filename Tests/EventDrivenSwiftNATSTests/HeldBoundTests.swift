// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// A transport whose consumer delivers, for each fetch, what it asks for from a script of
/// `count` messages, and records every request with how many of its deliveries were out then
/// (accepted and not settled).
///
/// It widens the window in which a delivery is neither queued nor counted by the importer: a
/// fetch returns only once the reader has taken its batch, and the reader hands that batch to the
/// importer only once the next fetch was asked for (or after `hold`). A fetch loop that counts
/// only what is queued and what the importer counted asks again inside that window.
final class PacedTransport: EventTransport {
    struct Request: Sendable, CustomStringConvertible {
        /// What the fetch asked for.
        var batch: Int
        /// The deliveries out when it asked: accepted and not yet settled.
        var out: Int
        var description: String { "\(batch) with \(out) out" }
    }

    private struct State {
        var left: Int
        var next = 0
        var accepted = 0
        var fetches = 0
        var pending: [any TransportDelivery] = []
        /// The fetch that filled ``pending``.
        var pendingFetch = 0
        var reader: CheckedContinuation<(deliveries: [any TransportDelivery], fetch: Int), Never>?
        var finished = false
        var requests: [Request] = []
    }

    let log = NIOLockedValueBox(ScriptedTransport.Log())
    private let state: NIOLockedValueBox<State>
    private let hold: Duration

    init(count: Int, hold: Duration = .milliseconds(300)) {
        state = NIOLockedValueBox(State(left: count))
        self.hold = hold
    }

    /// Every fetch request so far, in order.
    var requests: [Request] { state.withLockedValue { $0.requests } }
    /// The deliveries accepted so far.
    var accepted: Int { state.withLockedValue { $0.accepted } }
    /// The deliveries settled so far.
    var settled: Int { log.withLockedValue { $0.settlements.count } }

    func start() async throws {}
    func stop() async {}

    func publish(
        subject: String, headers: NATSHeaders, body: ByteBuffer,
        completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
    ) throws {
        completion(.success(false))
    }

    func openConsumer(subject: String, group: String?) async throws -> any TransportConsumer {
        Consumer(transport: self)
    }

    final class Consumer: TransportConsumer {
        let transport: PacedTransport

        init(transport: PacedTransport) { self.transport = transport }

        func fetch(batch: Int, expires: Duration) async throws { try await transport.fetch(batch: batch) }
        func nextDeliveries() async -> [any TransportDelivery] { await transport.nextDeliveries() }
        var isLost: Bool { false }
        var accepted: Int { transport.accepted }
        func finish() { transport.finish() }
    }

    /// Records the request, then hands its batch to the reader and returns once the reader has
    /// taken it; with nothing left, waits 20 ms like a fetch that expired empty.
    private func fetch(batch: Int) async throws {
        let log = self.log
        typealias Reader = CheckedContinuation<(deliveries: [any TransportDelivery], fetch: Int), Never>
        let (reader, handed, fetch) = state.withLockedValue {
            state -> (Reader?, [any TransportDelivery], Int) in
            let out = state.accepted - log.withLockedValue { $0.settlements.count }
            state.requests.append(Request(batch: batch, out: out))
            state.fetches += 1
            let count = min(batch, state.left)
            let deliveries: [any TransportDelivery] = (state.next..<state.next + count).map { id in
                ScriptedDelivery(
                    id: id, subject: "eds.orders.placed",
                    headers: NATSHeaders([("Eds-Event", "orders.placed"), ("Eds-Event-Version", "1")]),
                    payload: ByteBuffer(string: #"{"orderID":\#(id),"customerID":2,"amount":3}"#), deliveryCount: 1,
                    headerError: nil, rawHeaders: nil, stableID: "", log: log)
            }
            state.next += count
            state.left -= count
            state.accepted += count
            if !deliveries.isEmpty, let reader = state.reader {
                state.reader = nil
                return (reader, deliveries, state.fetches)
            }
            state.pending += deliveries
            state.pendingFetch = state.fetches
            return (nil, deliveries, state.fetches)
        }
        if handed.isEmpty {
            try await Task.sleep(for: .milliseconds(20))
            return
        }
        if let reader {
            reader.resume(returning: (handed, fetch))
            return
        }
        while state.withLockedValue({ !$0.pending.isEmpty && !$0.finished }) {
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Takes what the fetches brought, then keeps it from the importer until the next fetch was
    /// asked for, or for ``hold`` at most.
    private func nextDeliveries() async -> [any TransportDelivery] {
        let (taken, fetch) = await withCheckedContinuation {
            (continuation: CheckedContinuation<(deliveries: [any TransportDelivery], fetch: Int), Never>) in
            let ready = state.withLockedValue { state -> (deliveries: [any TransportDelivery], fetch: Int)? in
                if !state.pending.isEmpty {
                    defer { state.pending = [] }
                    return (state.pending, state.pendingFetch)
                }
                if state.finished { return ([], 0) }
                state.reader = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        let deadline = ContinuousClock.now + hold
        while !taken.isEmpty, ContinuousClock.now < deadline,
            state.withLockedValue({ $0.fetches == fetch && !$0.finished })
        {
            try? await Task.sleep(for: .milliseconds(1))
        }
        return taken
    }

    private func finish() {
        let reader = state.withLockedValue { state in
            state.finished = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: ([], 0))
    }
}

/// ``NATSBridgeConfiguration/Consumers/maxHeld`` against a consumer that hands deliveries over
/// when the fetch loop looks: what is out from the broker never exceeds it.
@Suite("NATS importer's maxHeld bound", .timeLimit(.minutes(2)))
struct HeldBoundTests {
    @Test(
        "X2: a fetch never asks for more than maxHeld leaves, deliveries taken from the consumer and not yet counted by the importer included"
    )
    func fetchAsksOnlyForTheRoomLeft() async throws {
        let count = 24
        let transport = PacedTransport(count: count)
        var configuration = NATSBridgeConfiguration()
        configuration.consumers.maxHeld = 8
        configuration.consumers.fetchBatch = 4
        let bridge = NATSBridge(
            bus: EventBus(), events: try registry(), configuration: configuration, transport: transport,
            logger: quietLogger)
        let gate = Gate()
        try bridge.listen(OrderPlaced.self, mode: .group("g")) { _, _ in await gate.wait() }
        let running = Task { try await bridge.run() }
        try await bridge.waitUntilRunning()
        // Nothing is settled while the gate is closed: two batches fill maxHeld, and no third is
        // asked for (the fetch loop had half a second to do so).
        #expect(await poll(timeout: .seconds(60)) { transport.accepted >= 8 })
        try await Task.sleep(for: .milliseconds(500))
        #expect(transport.accepted == 8, "requests \(transport.requests)")
        gate.open()
        #expect(await poll(timeout: .seconds(60)) { transport.settled == count })
        bridge.shutdown()
        try await running.value
        let requests = transport.requests
        #expect(requests.allSatisfy { $0.batch <= 8 - $0.out }, "requests \(requests)")
        #expect(transport.log.withLockedValue { $0.settlements.allSatisfy { $0.hasPrefix("ack") } })
    }
}
