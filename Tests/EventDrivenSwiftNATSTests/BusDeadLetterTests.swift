// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// Broker dead letters in the bus's own `deadLetters()` (issue 16).
extension NATSServerTests {
    struct Declined: Error {}

    @Test(
        "X2: a malformed body and a handler that fails max_deliver times each appear in bus.deadLetters() as a NATSDeadLetter"
    )
    func brokerDeadLettersReachTheBus() async throws {
        try await withNATSServer { server in
            let bus = EventBus(label: "dead letters")
            var configuration = NATSBridgeConfiguration()
            configuration.consumers.maxDeliver = 3
            configuration.consumers.retryDelays = [.milliseconds(20)]
            let bridge = try NATSBridge(
                bus: bus, events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            let attempts = Collected<Int>()
            try bridge.listen(OrderPlaced.self, mode: .group("workers")) { @Sendable _, delivery in
                attempts.append(delivery.deliveryCount)
                throw Declined()
            }
            // Subscribed before anything can fail, so no letter is missed.
            let letters = bus.deadLetters()
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()

            let raw = try RawNATSSocket(port: server.port)
            #expect(await raw.handshake())
            raw.send(
                rawPublish(
                    "eds.orders.placed", headers: ["Nats-Msg-Id: bad-1", "Eds-Event: orders.placed"], body: "{not json")
            )
            try await bridge.publishAndWait(OrderPlaced(orderID: 9, customerID: 1, amount: 2))

            // The bus also posts a local `.failed` letter for each throw of the listener; only the
            // broker's letters are NATSDeadLetter values.
            let found = await firstBrokerLetters(2, in: letters, timeout: .seconds(30))
            #expect(found.count == 2)
            #expect(found.allSatisfy { $0.reason == .failed })
            let broker = found.compactMap { $0.event as? NATSDeadLetter }
            let malformed = broker.first { $0.messageID == "bad-1" }
            #expect(malformed?.reason.contains("undecodable body for orders.placed") == true, "\(broker)")
            #expect(malformed?.eventName == "orders.placed")
            #expect(malformed.map { String(buffer: $0.payload) } == "{not json")
            let failed = broker.first { $0.messageID != "bad-1" }
            #expect(failed?.reason.contains("handler failed 3 times") == true, "\(broker)")
            #expect(failed?.reason.contains("Declined") == true)
            #expect(failed?.deliveryCount == 3)
            #expect(failed?.subject == "eds.orders.placed")
            #expect(attempts.values == [1, 2, 3])
            #expect(bridge.statistics.deadLettered == 2)
            bridge.shutdown()
            try await running.value
        }
    }

    /// The first `count` letters whose event is a ``NATSDeadLetter``, or fewer once `timeout` passed.
    private func firstBrokerLetters(
        _ count: Int, in letters: AsyncStream<DeadLetter>, timeout: Duration
    ) async -> [DeadLetter] {
        await withTaskGroup(of: [DeadLetter]?.self) { group in
            group.addTask {
                var found: [DeadLetter] = []
                for await letter in letters where letter.event is NATSDeadLetter {
                    found.append(letter)
                    if found.count == count { break }
                }
                return found
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }
}
