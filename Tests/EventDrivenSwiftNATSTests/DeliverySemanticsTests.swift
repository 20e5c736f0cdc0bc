// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// What the server says about a consumer: messages delivered and not acknowledged,
/// redeliveries, and its sequences (deliveries made, redeliveries included, and acknowledged).
struct ConsumerState: Decodable {
    struct Sequence: Decodable {
        var consumerSequence: Int
        enum CodingKeys: String, CodingKey { case consumerSequence = "consumer_seq" }
    }
    var ackPending: Int
    var redelivered: Int
    var delivered: Sequence
    var ackFloor: Sequence
    var deliveredSequence: Int { delivered.consumerSequence }
    var acknowledgedSequence: Int { ackFloor.consumerSequence }

    enum CodingKeys: String, CodingKey {
        case ackPending = "num_ack_pending"
        case redelivered = "num_redelivered"
        case delivered
        case ackFloor = "ack_floor"
    }

    static func read(_ client: NATSClient, stream: String = "EDS", consumer: String) async throws -> ConsumerState {
        let reply = try await client.request(ByteBuffer(), to: "$JS.API.CONSUMER.INFO.\(stream).\(consumer)")
        return try JSONDecoder().decode(ConsumerState.self, from: Data(reply.bytes))
    }
}

/// A gate a handler waits at until the test opens it.
final class Gate: Sendable {
    private let state = NIOLockedValueBox<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLockedValue { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLockedValue { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// At-least-once done right (SPEC X2, issue 28 §1): each message settled when its own handler is
/// done, what a process holds bounded, `+WPI` for long handlers, importers kept apart, dead
/// letters stored before the original is terminated.
extension NATSServerTests {
    func publish(_ orderIDs: ClosedRange<Int>, to server: NATSServerProcess) async throws {
        let producer = try NATSBridge(bus: EventBus(), events: try registry(), server: server.url, logger: quietLogger)
        let running = Task { try await producer.run() }
        try await producer.waitUntilRunning()
        for orderID in orderIDs {
            try await producer.publishAndWait(OrderPlaced(orderID: orderID, customerID: 1, amount: 1))
        }
        producer.shutdown()
        try await running.value
    }

    @Test("X2: each message is acknowledged when its own handler is done, not when its batch is")
    func ackPerMessage() async throws {
        try await withNATSServer { server in
            try await publish(1...8, to: server)
            var configuration = NATSBridgeConfiguration()
            configuration.consumers.fetchBatch = 8
            let bridge = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            let gate = Gate()
            let handled = Collected<Int>()
            try bridge.listen(OrderPlaced.self, mode: .group("acks")) { order, _ in
                if order.orderID == 8 { await gate.wait() }
                handled.append(order.orderID)
            }
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            #expect(await poll(timeout: .seconds(60)) { handled.values.count == 7 })
            let observer = try await connectedClient(server)
            var pending = 0
            // Seven handlers returned: seven acks, although the eighth of their batch still runs.
            let settled = await pollAsync(timeout: .seconds(5)) {
                pending = (try? await ConsumerState.read(observer, consumer: "acks_eds_orders_placed").ackPending) ?? -1
                return pending == 1
            }
            #expect(settled, "\(pending) unacknowledged")
            gate.open()
            #expect(await poll(timeout: .seconds(60)) { handled.values.count == 8 })
            bridge.shutdown()
            try await running.value
            await observer.close()
        }
    }

    @Test("X2: what a process holds, fetched included, stays within maxHeld")
    func maxHeldBoundsFetched() async throws {
        try await withNATSServer { server in
            try await publish(1...60, to: server)
            var configuration = NATSBridgeConfiguration()
            configuration.consumers.maxHeld = 8
            configuration.consumers.fetchBatch = 4
            configuration.consumers.fetchExpiry = .milliseconds(200)
            let bridge = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            let gate = Gate()
            let started = Collected<Int>()
            try bridge.listen(OrderPlaced.self, mode: .group("held")) { order, _ in
                started.append(order.orderID)
                await gate.wait()
            }
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            let observer = try await connectedClient(server)
            #expect(await poll(timeout: .seconds(60)) { started.values.count == 1 })
            // Every read during two seconds of fetch attempts: never more than maxHeld delivered.
            var most = 0
            let deadline = ContinuousClock.now + .seconds(2)
            while ContinuousClock.now < deadline {
                let state = try await ConsumerState.read(observer, consumer: "held_eds_orders_placed")
                most = max(most, state.ackPending)
                try await Task.sleep(for: .milliseconds(50))
            }
            // Exactly maxHeld: deliveries taken from the consumer's queue and not yet counted as
            // held count too (12 were seen once, in a ThreadSanitizer run, when they did not; see
            // HeldBoundTests for that window made wide). Still a known defect: 16 were seen once
            // since, in a ThreadSanitizer run of the whole suite (this test took 6.5 s, not 2.5 s),
            // and not in 120 other ThreadSanitizer runs of it, up to six at once or beside the
            // parser's fuzzing. Its likely cause, not confirmed: a fetch ended here before its
            // batch was read (heartbeats read late) leaves its request open on the server, which
            // serves it as well as the next one.
            #expect(most >= 8, "the server had \(most) messages out to this process")
            withKnownIssue("a fetch ended here leaves its request open on the server", isIntermittent: true) {
                #expect(most == 8, "the server had \(most) messages out to this process")
            }
            gate.open()
            #expect(await poll(timeout: .seconds(60)) { started.values.count == 60 })
            bridge.shutdown()
            try await running.value
            await observer.close()
        }
    }

    @Test("X2: a handler still running at half the ack wait keeps its message (+WPI): no redelivery")
    func workInProgress() async throws {
        try await withNATSServer { server in
            try await publish(1...1, to: server)
            var configuration = NATSBridgeConfiguration()
            configuration.consumers.ackWait = .seconds(4)
            let bridge = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            let deliveries = Collected<Int>()
            let gate = Gate()
            try bridge.listen(OrderPlaced.self, mode: .group("slow")) { _, delivery in
                deliveries.append(delivery.deliveryCount)
                await gate.wait()
            }
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            // Held for about twice the ack wait, the message is still this handler's only.
            #expect(await poll(timeout: .seconds(60)) { bridge.statistics.inProgress >= 3 })
            gate.open()
            let observer = try await connectedClient(server)
            let acknowledged = await pollAsync(timeout: .seconds(5)) {
                (try? await ConsumerState.read(observer, consumer: "slow_eds_orders_placed").ackPending) == 0
            }
            #expect(acknowledged)
            let state = try await ConsumerState.read(observer, consumer: "slow_eds_orders_placed")
            #expect(state.redelivered == 0 && deliveries.values == [1], "deliveries \(deliveries.values)")
            bridge.shutdown()
            try await running.value
            await observer.close()
        }
    }

    @Test(
        "X2: importEvents keeps the ack wait of fetched batches waiting behind a slow one (+WPI): nothing is delivered twice"
    )
    func importedBatchesWaitingAreKept() async throws {
        try await withNATSServer { server in
            let count = 200
            try await publish(1...count, to: server)
            // Two batches of 100 fetched at once; 40 ms per event, so the second waits 4 s behind
            // the first, longer than the ack wait (3 s). It used to wait in the consumer's queue,
            // where no +WPI reached it, and was delivered again.
            var configuration = NATSBridgeConfiguration()
            configuration.consumers.ackWait = .seconds(3)
            configuration.consumers.fetchBatch = 100
            configuration.consumers.maxHeld = count
            let bus = EventBus(label: "patient-import")
            let handled = Collected<Int>()
            let listener = bus.listen(OrderPlaced.self, executeOn: .listenerThread) { order, _ in
                usleep(40_000)
                handled.append(order.orderID)
            }
            let bridge = try NATSBridge(
                bus: bus, events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            try bridge.importEvents(OrderPlaced.self, mode: .group("patient"))
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            #expect(await poll(timeout: .seconds(120)) { handled.values.count >= count })
            let observer = try await connectedClient(server)
            // Every delivery acknowledged; the server's count of deliveries says whether one was
            // a second delivery.
            var state = try await ConsumerState.read(observer, consumer: "patient_eds_orders_placed")
            let settled = await pollAsync(timeout: .seconds(60)) {
                guard let read = try? await ConsumerState.read(observer, consumer: "patient_eds_orders_placed")
                else { return false }
                state = read
                return read.ackPending == 0 && read.acknowledgedSequence == read.deliveredSequence
            }
            #expect(settled, "\(state)")
            #expect(state.deliveredSequence == count, "\(state.deliveredSequence) deliveries of \(count) messages")
            #expect(handled.values.count == count && bridge.statistics.received == count, "\(bridge.statistics)")
            #expect(bridge.statistics.inProgress > 0)
            bridge.shutdown()
            try await running.value
            listener.cancel()
            await observer.close()
        }
    }

    @Test("X2: two listens of one type, a broadcast and a group, each see their own deliveries once")
    func listensKeptApart() async throws {
        try await withNATSServer { server in
            let bridge = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, logger: quietLogger)
            let broadcast = Collected<Int>()
            let group = Collected<Int>()
            try bridge.listen(OrderPlaced.self, mode: .broadcast) { order, _ in broadcast.append(order.orderID) }
            try bridge.listen(OrderPlaced.self, mode: .group("apart")) { order, _ in group.append(order.orderID) }
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            try await publish(1...5, to: server)
            #expect(await poll(timeout: .seconds(60)) { broadcast.values.count >= 5 && group.values.count >= 5 })
            try await bridge.publishAndWait(OrderPlaced(orderID: 99, customerID: 0, amount: 0))
            #expect(await poll(timeout: .seconds(60)) { broadcast.values.contains(99) && group.values.contains(99) })
            #expect(broadcast.values.sorted() == [1, 2, 3, 4, 5, 99])
            #expect(group.values.sorted() == [1, 2, 3, 4, 5, 99])
            bridge.shutdown()
            try await running.value
        }
    }
}

extension ImporterHostileTests {
    @Test("X2: a dead letter is stored (acknowledged, retried with one id) before its original is terminated")
    func deadLetterStoredFirst() async throws {
        for failures in [2, 10] {
            let transport = ScriptedTransport([.init()], failingPublishes: failures)
            var configuration = NATSBridgeConfiguration()
            configuration.consumers.maxDeliver = 1
            configuration.consumers.publishAttempts = 4
            let bridge = NATSBridge(
                bus: EventBus(), events: try registry(), configuration: configuration, transport: transport,
                logger: quietLogger)
            try bridge.listen(OrderPlaced.self, mode: .group("g")) { _, _ in throw CancellationError() }
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            #expect(await poll(timeout: .seconds(60)) { !transport.log.withLockedValue { $0.settlements.isEmpty } })
            let (settlements, attempts) = transport.log.withLockedValue { ($0.settlements, $0.publishAttempts) }
            let ids = Set(attempts.map { $0[NATSHeaderName.messageID] ?? "" })
            #expect(ids.count == 1)
            if failures < 4 {
                // Stored at the third attempt, then terminated.
                #expect(attempts.count == 3 && settlements == ["term 0"], "\(settlements)")
            } else {
                // Never stored: the original stays on the broker.
                #expect(attempts.count == 4 && settlements == ["nak 0"], "\(settlements)")
            }
            bridge.shutdown()
            try await running.value
        }
    }
}

/// ``poll(timeout:_:)`` for an asynchronous condition.
func pollAsync(timeout: Duration, _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

extension NATSServerTests {
    @Test("X2: a message that ran out of max_deliver with no acknowledgement (a hung worker) becomes a dead letter")
    func maxDeliveriesAdvisory() async throws {
        try await withNATSServer { server in
            var configuration = NATSBridgeConfiguration()
            configuration.consumers.ackWait = .seconds(1)
            configuration.consumers.maxDeliver = 2
            // The stream and the group's consumer exist; one event waits.
            try await publish(1...1, to: server)
            let client = try await connectedClient(server)
            let jetStream = JetStream(client: client)
            let durable = "hang_eds_orders_placed"
            _ = try await jetStream.createConsumer(
                stream: "EDS",
                JetStreamConsumerConfiguration(
                    durableName: durable, deliverPolicy: "all", ackWait: 1_000_000_000, maxDeliver: 2,
                    filterSubject: "eds.orders.placed", maxAckPending: configuration.consumers.maxAckPending))
            // A worker of the group that hangs: it takes the event twice and never answers.
            let hung = try JetStreamPullSubscription(jetStream: jetStream, stream: "EDS", consumer: durable)
            var deliveries: [Int] = []
            while deliveries.count < 2 {
                try await hung.fetch(batch: 1, expires: .seconds(2))
                deliveries += await hung.nextMessages().map(\.deliveryCount)
            }
            #expect(deliveries == [1, 2])
            hung.finish()
            // Another worker of the group learns that the server gave up on it.
            let bridge = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, configuration: configuration,
                logger: quietLogger)
            let handled = Collected<Int>()
            try bridge.listen(OrderPlaced.self, mode: .group("hang")) { order, _ in handled.append(order.orderID) }
            let letters = bridge.deadLetters()
            let running = Task { try await bridge.run() }
            try await bridge.waitUntilRunning()
            var iterator = letters.makeAsyncIterator()
            let letter = await iterator.next()
            #expect(letter?.reason.contains("max_deliver") == true, "\(String(describing: letter))")
            #expect(letter?.eventName == "orders.placed" && letter?.deliveryCount == 2)
            #expect(
                try JSONDecoder().decode(OrderPlaced.self, from: Data(letter!.payload.readableBytesView)).orderID == 1)
            #expect(handled.values.isEmpty)
            // The copy is stored on the dead-letter subject.
            #expect(try await streamInfo(client, "EDS").state.messages == 2)
            bridge.shutdown()
            try await running.value
            await client.close()
        }
    }
}

extension NATSServerTests {
    @Test("X2: a broadcast importer with a stable instance name resumes where it left off; a plain one does not replay")
    func durableBroadcastResumes() async throws {
        try await withNATSServer { server in
            func instance(_ mode: NATSImportMode, _ handled: Collected<Int>) async throws -> (
                NATSBridge, Task<Void, any Error>
            ) {
                let bridge = try NATSBridge(
                    bus: EventBus(), events: try registry(), server: server.url, logger: quietLogger)
                try bridge.listen(OrderPlaced.self, mode: mode) { order, _ in handled.append(order.orderID) }
                let running = Task { try await bridge.run() }
                try await bridge.waitUntilRunning()
                return (bridge, running)
            }
            let durableBefore = Collected<Int>()
            let plainBefore = Collected<Int>()
            var (durable, durableRunning) = try await instance(.durableBroadcast("cache-1"), durableBefore)
            var (plain, plainRunning) = try await instance(.broadcast, plainBefore)
            try await publish(1...3, to: server)
            #expect(
                await poll(timeout: .seconds(60)) { durableBefore.values.count == 3 && plainBefore.values.count == 3 })
            durable.shutdown()
            plain.shutdown()
            try await durableRunning.value
            try await plainRunning.value
            // Published while both are away.
            try await publish(4...6, to: server)
            let durableAfter = Collected<Int>()
            let plainAfter = Collected<Int>()
            (durable, durableRunning) = try await instance(.durableBroadcast("cache-1"), durableAfter)
            (plain, plainRunning) = try await instance(.broadcast, plainAfter)
            try await publish(7...7, to: server)
            #expect(
                await poll(timeout: .seconds(60)) { durableAfter.values.count == 4 && plainAfter.values.count == 1 })
            #expect(durableAfter.values.sorted() == [4, 5, 6, 7] && plainAfter.values == [7])
            durable.shutdown()
            plain.shutdown()
            try await durableRunning.value
            try await plainRunning.value
        }
    }
}

extension NATSServerTests {
    @Test(
        "X2: a 5 ms handler under a backlog of 20,000 with the default ack wait: nothing redelivered to another worker")
    func slowHandlersUnderBacklog() async throws {
        try await withNATSServer { server in
            let count = 20_000
            let producer = try NATSBridge(
                bus: EventBus(), events: try registry(), server: server.url, logger: quietLogger)
            let producing = Task { try await producer.run() }
            try await producer.waitUntilRunning()
            for orderID in 1...count {
                try producer.publish(OrderPlaced(orderID: orderID, customerID: 1, amount: 1))
                if orderID % 256 == 0 { await producer.waitForExports(below: 1_024) }
            }
            await producer.waitForExports()
            #expect(producer.statistics.acknowledged == count)
            producer.shutdown()
            try await producing.value
            // Two workers with the default settings (30 s ack wait, maxHeld 2,048), 5 ms per event.
            let handled = Collected<Int>()
            var workers: [(NATSBridge, Task<Void, any Error>)] = []
            for _ in 0..<2 {
                let worker = try NATSBridge(
                    bus: EventBus(), events: try registry(), server: server.url, logger: quietLogger)
                try worker.listen(OrderPlaced.self, mode: .group("backlog")) { order, _ in
                    try await Task.sleep(for: .milliseconds(5))
                    handled.append(order.orderID)
                }
                let running = Task { try await worker.run() }
                try await worker.waitUntilRunning()
                workers.append((worker, running))
            }
            #expect(await poll(timeout: .seconds(240)) { handled.values.count >= count })
            let observer = try await connectedClient(server)
            let state = try await ConsumerState.read(observer, consumer: "backlog_eds_orders_placed")
            #expect(state.redelivered == 0, "\(state.redelivered) redelivered")
            #expect(handled.values.count == count && Set(handled.values).count == count)
            for (worker, running) in workers {
                worker.shutdown()
                try await running.value
            }
            await observer.close()
        }
    }
}
