// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// A delivery the bus refused is sent back (`-NAK`) only once the importer's consumer is
/// finished (its inbox unsubscribed). A fetch that ended here first (its heartbeats read late by
/// a busy process) leaves its request open on the server until its expiry; while our inbox is
/// subscribed, a message sent back may be delivered to that request, and the finishing
/// subscription no longer takes it (lost until its ack wait). Unsubscribed, the server passes
/// over the request.
@Suite("NATS importer: sent back after its consumer is finished", .timeLimit(.minutes(2)))
struct SendBackOrderTests {
    @Test("X7: a delivery the bus refused during a fetch is sent back after the consumer is finished, not before")
    func sentBackAfterFinish() async throws {
        let transport = ScriptedTransport([.init()])
        let bus = EventBus(label: "gone")
        let bridge = NATSBridge(
            bus: bus, events: try registry(), configuration: NATSBridgeConfiguration(), transport: transport,
            logger: quietLogger)
        try bridge.listen(OrderPlaced.self, mode: .group("g")) { _, _ in }
        await bus.shutdown()
        let running = Task { try await bridge.run() }
        #expect(await poll(timeout: .seconds(60)) { transport.log.withLockedValue { $0.settlements } == ["nak 0"] })
        let timeline = transport.log.withLockedValue { $0.timeline }
        #expect(timeline == ["finish", "nak 0"], "\(timeline)")
        #expect(bridge.statistics.refusedByBus == 1, "\(bridge.statistics)")
        bridge.shutdown()
        _ = await outcome(within: .seconds(10)) { try await running.value }
    }
}

extension NATSServerTests {
    /// How the test below settles the message our finished subscription took.
    enum SendBack: CaseIterable, CustomTestStringConvertible, Sendable {
        /// One `-NAK`: what the importer sends for a delivery the bus refused.
        case nak
        /// Two `-NAK`s, one after the other; the importer never sends a delivery back twice.
        case nakTwice
        /// A `-NAK`, then a `+WPI` (the importer's keep-alive, had it still counted the delivery).
        case nakThenInProgress

        var testDescription: String {
            switch self {
            case .nak: "-NAK"
            case .nakTwice: "-NAK twice"
            case .nakThenInProgress: "-NAK then +WPI"
            }
        }
    }

    /// What the order above relies on, on nats-server: our request is still open (batch 2, one
    /// message came, 3 s to run) when our inbox is unsubscribed and the message sent back; it
    /// goes to another subscriber's fetch, not to our request, and once (also when a `+WPI`
    /// follows the `-NAK`). Sent back twice, it may come twice: nats-server 2.9.10 gave `[1, 1]`
    /// in 2 of about 10 runs, so that case checks only that it comes, and only as message 1.
    @Test(
        "X7: a message sent back once our inbox is unsubscribed reaches another fetch, though our request is open",
        arguments: SendBack.allCases)
    func sentBackPastOpenRequest(settling: SendBack) async throws {
        try await withNATSServer { server in
            let client = try await connectedClient(server)
            let jetStream = JetStream(client: client)
            let first = try await pullSubscription(
                jetStream, stream: "OPEN", prefix: "open", durable: "open", messages: ["1"])
            let fetching = Task { try await first.fetch(batch: 2, expires: .seconds(3)) }
            #expect(await poll(timeout: .seconds(10)) { first.queued == 1 })
            first.finish()
            _ = await outcome(within: .seconds(10)) { try await fetching.value }
            let taken = await first.nextMessages()
            #expect(taken.map(\.streamSequence) == [1])
            try taken.first?.nak(delay: nil)
            if settling == .nakTwice { try taken.first?.nak(delay: nil) }
            if settling == .nakThenInProgress { try taken.first?.inProgress() }

            // Lost to our request, it would come after the consumer's ack wait (30 s).
            let second = try JetStreamPullSubscription(jetStream: jetStream, stream: "OPEN", consumer: "open")
            var received: [UInt64] = []
            for _ in 0..<2 {
                try await second.fetch(batch: 2, expires: .seconds(1))
                for message in second.queued > 0 ? await second.nextMessages() : [] {
                    received.append(message.streamSequence)
                    try message.ack()
                }
            }
            if settling == .nakTwice {
                #expect(!received.isEmpty && received.allSatisfy { $0 == 1 }, "\(received)")
            } else {
                #expect(received == [1], "\(received)")
            }
            second.finish()
            await client.close()
        }
    }
}
