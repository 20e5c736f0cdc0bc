// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

extension NATSServerTests {
    @Test(
        "X4: max-deliveries advisories are read back one at a time; those beyond the watcher's buffer are dropped and counted, every one accounted for"
    )
    func advisoryFloodIsBounded() async throws {
        try await withNATSServer { server in
            let client = try await connectedClient(server)
            // The stream API is the test's: it answers a read back when it chooses to.
            var jetStream = JetStream(client: client)
            jetStream.apiPrefix = "TEST.API"
            jetStream.timeout = .seconds(60)
            struct API {
                var answering = false
                var waiting: [(reply: String, sequence: UInt64)] = []
                var requests = 0
            }
            let api = NIOLockedValueBox(API())
            struct Request: Decodable { var seq: UInt64 }
            let answer: @Sendable (String, UInt64) -> Void = { reply, sequence in
                let body = Data(#"{"orderID":\#(sequence),"customerID":1,"amount":1}"#.utf8).base64EncodedString()
                let response = #"{"message":{"subject":"eds.orders.placed","seq":\#(sequence),"data":"\#(body)"}}"#
                try? client.publish(ByteBuffer(string: response), to: reply)
            }
            let apiSubscription = try client.subscribe(to: "TEST.API.STREAM.MSG.GET.EDS") { message in
                guard let reply = message.replyTo,
                    let request = try? JSONDecoder().decode(Request.self, from: Data(message.payload.readableBytesView))
                else { return }
                let now = api.withLockedValue { api -> Bool in
                    api.requests += 1
                    if !api.answering { api.waiting.append((reply, request.seq)) }
                    return api.answering
                }
                if now { answer(reply, request.seq) }
            }
            let counters = _TransportCounters()
            let consumer = "g_eds_orders_placed"
            let watcher = try _MaxDeliveriesWatcher(
                jetStream: jetStream, stream: "EDS", consumer: consumer, subject: "eds.orders.placed", capacity: 2,
                counters: counters, logger: quietLogger)
            try await client.flush()
            let subject = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.EDS.\(consumer)"
            func advisory(_ sequence: Int) throws {
                try client.publish(
                    ByteBuffer(
                        string: #"{"stream":"EDS","consumer":"\#(consumer)","stream_seq":\#(sequence),"deliveries":5}"#),
                    to: subject)
            }
            // The first one is being read back (the API holds its answer); six more arrive.
            try advisory(1)
            #expect(await poll(timeout: .seconds(60)) { api.withLockedValue { $0.requests } == 1 })
            for sequence in 2...7 { try advisory(sequence) }
            try await client.flush()
            // Two wait in the buffer, four are dropped and counted; still one read at a time.
            #expect(await poll(timeout: .seconds(60)) { counters.droppedAdvisories.load(ordering: .relaxed) == 4 })
            #expect(api.withLockedValue { $0.requests } == 1)
            let waiting = api.withLockedValue { api in
                api.answering = true
                defer { api.waiting = [] }
                return api.waiting
            }
            for (reply, sequence) in waiting { answer(reply, sequence) }
            var read: [String] = []
            for await delivery in watcher.deliveries {
                read.append(delivery.stableID)
                if read.count == 3 { break }
            }
            #expect(read == ["EDS:1", "EDS:2", "EDS:3"])
            #expect(api.withLockedValue { $0.requests } == 3)
            // Every advisory read back or counted.
            #expect(read.count + counters.droppedAdvisories.load(ordering: .relaxed) == 7)
            watcher.finish()
            apiSubscription.unsubscribe()
            await client.close()
        }
    }

    @Test(
        "X4: an advisory naming a message of another subject (forged: the consumer never had it) is dropped and counted, not dead-lettered"
    )
    func advisoryForAnotherSubject() async throws {
        try await withNATSServer { server in
            let client = try await connectedClient(server)
            var jetStream = JetStream(client: client)
            jetStream.apiPrefix = "TEST.API"
            jetStream.timeout = .seconds(60)
            struct Request: Decodable { var seq: UInt64 }
            // Sequence 99 holds an event of another type.
            let apiSubscription = try client.subscribe(to: "TEST.API.STREAM.MSG.GET.EDS") { message in
                guard let reply = message.replyTo,
                    let request = try? JSONDecoder().decode(Request.self, from: Data(message.payload.readableBytesView))
                else { return }
                let subject = request.seq == 99 ? "eds.payments.made" : "eds.orders.placed"
                let response = #"{"message":{"subject":"\#(subject)","seq":\#(request.seq),"data":"e30="}}"#
                try? client.publish(ByteBuffer(string: response), to: reply)
            }
            let counters = _TransportCounters()
            let consumer = "g_eds_orders_placed"
            let watcher = try _MaxDeliveriesWatcher(
                jetStream: jetStream, stream: "EDS", consumer: consumer, subject: "eds.orders.placed",
                counters: counters, logger: quietLogger)
            try await client.flush()
            for sequence in [99, 1] {
                try client.publish(
                    ByteBuffer(
                        string: #"{"stream":"EDS","consumer":"\#(consumer)","stream_seq":\#(sequence),"deliveries":5}"#),
                    to: "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.EDS.\(consumer)")
            }
            var iterator = watcher.deliveries.makeAsyncIterator()
            let first = await iterator.next()
            #expect(first?.stableID == "EDS:1" && first?.subject == "eds.orders.placed")
            #expect(counters.droppedAdvisories.load(ordering: .relaxed) == 1)
            watcher.finish()
            apiSubscription.unsubscribe()
            await client.close()
        }
    }

    @Test("X4: a bridge's statistics count the advisories its transport dropped")
    func droppedAdvisoriesInStatistics() async throws {
        let client = NATSClient(configuration: try NATSClientConfiguration(server: "nats://127.0.0.1:1"))
        let transport = NATSJetStreamTransport(client: client, configuration: NATSBridgeConfiguration())
        transport.counters.droppedAdvisories.add(3, ordering: .relaxed)
        #expect(transport.droppedExhaustedDeliveries == 3)
        let bridge = NATSBridge(
            bus: EventBus(), events: try registry(), transport: transport, logger: quietLogger)
        #expect(bridge.statistics.droppedAdvisories == 3)
    }
}
