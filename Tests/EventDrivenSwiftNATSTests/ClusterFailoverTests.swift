// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// A three-node JetStream cluster on loopback with an R3 stream (SPEC X3, issue 28): the node
/// that leads the stream goes (SIGKILL, or lame-duck mode) in the middle of a run and comes back;
/// every event the producer reported acknowledged is handled.
@Suite("NATS cluster failover", .serialized, .timeLimit(.minutes(5)), .enabled(if: natsServerInstalled))
struct ClusterFailoverTests {
    enum Loss { case kill, lameDuck }

    static let count = 3_000

    func run(_ loss: Loss) async throws {
        let cluster = try await NATSCluster()
        defer { Task { await cluster.shutdown() } }
        var configuration = NATSBridgeConfiguration()
        configuration.replicas = 3
        configuration.consumers.maxHeld = 256
        configuration.consumers.fetchBatch = 64
        configuration.consumers.ackWait = .seconds(5)
        func bridge() throws -> NATSBridge {
            var client = try NATSClientConfiguration(server: cluster.urls)
            client.reconnect.initialDelay = .milliseconds(50)
            client.reconnect.maximumDelay = .milliseconds(500)
            client.requestTimeout = .seconds(2)
            return NATSBridge(
                bus: EventBus(), events: try registry(), configuration: configuration,
                transport: NATSJetStreamTransport(
                    client: NATSClient(configuration: client, logger: quietLogger), configuration: configuration),
                logger: quietLogger)
        }
        // Two workers of one group and a producer, each given all three URLs.
        let handled = Collected<Int>()
        var workers: [(NATSBridge, Task<Void, any Error>)] = []
        for _ in 0..<2 {
            let worker = try bridge()
            try worker.listen(OrderPlaced.self, mode: .group("workers")) { order, _ in handled.append(order.orderID) }
            let running = Task { try await worker.run() }
            try await worker.waitUntilRunning()
            workers.append((worker, running))
        }
        let producer = try bridge()
        let producing = Task { try await producer.run() }
        try await producer.waitUntilRunning()
        let acknowledged = Collected<Int>()
        let failed = Collected<Int>()
        let publishing = Task {
            await withTaskGroup(of: Void.self) { tasks in
                for orderID in 1...Self.count {
                    if orderID > 64 { await tasks.next() }
                    tasks.addTask {
                        do {
                            try await producer.publishAndWait(OrderPlaced(orderID: orderID, customerID: 1, amount: 1))
                            acknowledged.append(orderID)
                        } catch {
                            failed.append(orderID)
                        }
                    }
                }
            }
        }
        // The stream's leader goes once the workers are well under way, and comes back.
        #expect(await poll(timeout: .seconds(60)) { handled.values.count >= Self.count / 4 })
        let observer = NATSClient(configuration: try NATSClientConfiguration(server: cluster.urls), logger: quietLogger)
        try await observer.connect()
        let leader = try #require(await cluster.leader(of: "EDS", client: observer))
        // The bridge created the stream with the replicas it was given: a copy on every node.
        #expect(try await cluster.replicas(of: "EDS", client: observer) == 3)
        await observer.close()
        switch loss {
        case .kill: await cluster.kill(leader)
        case .lameDuck: try await cluster.lameDuck(leader)
        }
        #expect(await poll(timeout: .seconds(60)) { handled.values.count >= Self.count / 2 })
        try await cluster.start(leader)
        await publishing.value
        let acked = Set(acknowledged.values)
        let complete = await poll(timeout: .seconds(90)) { acked.isSubset(of: Set(handled.values)) }
        let handledIDs = handled.values
        let duplicates = handledIDs.count - Set(handledIDs).count
        print(
            "cluster \(loss): \(acked.count) of \(Self.count) acknowledged, \(failed.values.count) reported failed, "
                + "\(Set(handledIDs).count) handled, \(duplicates) handled twice; leader was \(leader)")
        #expect(complete, "acknowledged but never handled: \(acked.subtracting(handledIDs).sorted().prefix(20))")
        // Nothing reported as acknowledged is lost, and every event is either acknowledged or reported.
        #expect(acked.count + failed.values.count == Self.count)
        // Duplicates only where a worker lost its connection holding unacknowledged events: at
        // most what the two workers may hold.
        #expect(duplicates <= 2 * configuration.consumers.maxHeld)
        producer.shutdown()
        try await producing.value
        for (worker, running) in workers {
            worker.shutdown()
            try? await running.value
        }
    }

    @Test("X3: the stream's leader SIGKILLed mid-run and restarted: every acknowledged event is handled")
    func leaderKilled() async throws {
        try await run(.kill)
    }

    @Test("X3: the stream's leader shut down in lame-duck mode mid-run: every acknowledged event is handled")
    func leaderLameDuck() async throws {
        try await run(.lameDuck)
    }
}

let natsServerInstalled = (try? NATSServerProcess.serverExecutable()) != nil
