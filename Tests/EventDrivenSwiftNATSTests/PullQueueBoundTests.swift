// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

extension NATSServerTests {
    @Test(
        "X4: a pull subscription asks for no more than its capacity and drops, counted, what comes unasked (with no fetch outstanding, a reader waiting, or beyond the batch)"
    )
    func pullQueueIsBounded() async throws {
        try await withNATSServer { server in
            let client = try await connectedClient(server)
            let subscription = try await pullSubscription(
                JetStream(client: client), stream: "BOUND", prefix: "bound", durable: "bounded",
                messages: (0..<10).map { "\($0)" }, capacity: 3)
            try await subscription.fetch(batch: 10, expires: .seconds(1))
            let first = await subscription.nextMessages()
            #expect(first.count == 3)
            #expect(subscription.accepted == 3)
            subscription.finish()
            await client.close()
        }
        // A server that sends deliveries nobody asked for: beyond the capacity they are dropped, counted.
        let scripted = try await ScriptedNATSServer()
        defer { Task { await scripted.shutdown() } }
        let client = NATSClient(configuration: try NATSClientConfiguration(server: scripted.url), logger: quietLogger)
        try await client.connect()
        let subscription = try JetStreamPullSubscription(
            jetStream: JetStream(client: client), stream: "BOUND", consumer: "bounded", capacity: 3)
        try await client.flush()
        guard let sid = scripted.subscription(startingWith: subscription.inbox)?.sid else {
            Issue.record("no SUB for the pull inbox")
            return
        }
        func deliveries(_ sequences: ClosedRange<Int>) -> String {
            sequences.map { "MSG \(subscription.inbox) \(sid) $JS.ACK.BOUND.bounded.1.\($0).\($0).0.0 1\r\nx\r\n" }
                .joined()
        }
        // No fetch outstanding, a reader waiting: none of them is asked for, none is taken.
        let reader = Task { await subscription.nextMessages() }
        scripted.send(deliveries(1...5), on: 1)
        #expect(await poll(timeout: .seconds(60)) { subscription.droppedDeliveries == 5 })
        #expect(subscription.queued == 0)
        #expect(subscription.accepted == 0)
        // A fetch asks for the capacity (3): of 5 sent, 3 are taken (the reader gets its share),
        // 2 dropped.
        let fetching = Task { try await subscription.fetch(batch: 10, expires: .seconds(5)) }
        #expect(
            await poll(timeout: .seconds(60)) {
                scripted.lines(of: 1).contains { $0.hasPrefix("PUB $JS.API.CONSUMER.MSG.NEXT.BOUND.bounded ") }
            })
        #expect(scripted.lines(of: 1).contains { $0.contains("\"batch\":3,") })
        scripted.send(deliveries(6...10), on: 1)
        #expect(await poll(timeout: .seconds(60)) { subscription.droppedDeliveries == 7 })
        try await fetching.value
        var taken = await reader.value.map(\.streamSequence)
        if taken.count < 3 { taken += await subscription.nextMessages().map(\.streamSequence) }
        #expect(taken == [6, 7, 8])
        // Accepted: the one handed to the waiting reader and those queued, not those dropped.
        #expect(subscription.accepted == 3)
        // A fetch that ended here (its time up) before its batch came: what it asked for may
        // still come for a while (its request may still live at the server); beyond that, no.
        try await subscription.fetch(batch: 2, expires: .milliseconds(50))
        scripted.send(deliveries(11...13), on: 1)
        #expect(await poll(timeout: .seconds(60)) { subscription.droppedDeliveries == 8 })
        #expect(await subscription.nextMessages().map(\.streamSequence) == [11, 12])
        #expect(subscription.accepted == 5)
        subscription.finish()
        await client.close()
    }
}
