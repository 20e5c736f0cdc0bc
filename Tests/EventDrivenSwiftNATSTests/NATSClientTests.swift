// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

extension NATSServerTests {
    @Test("X2: publish, subscribe with headers, queue groups, request-reply, no responders")
    func clientBasics() async throws {
        try await withNATSServer { server in
            let client = try await connectedClient(server)
            let received = Collected<NATSMessage>()
            try client.subscribe(to: "t.>") { received.append($0) }
            try client.subscribe(to: "service") { message in
                try? client.publish(ByteBuffer(string: "re: " + message.string), to: message.replyTo!)
            }
            try await client.flush()
            try client.publish(ByteBuffer(string: "one"), to: "t.a")
            try client.publish(ByteBuffer(string: "two"), to: "t.b", headers: NATSHeaders([("K", "V"), ("K", "W")]))
            let reply = try await client.request(ByteBuffer(string: "ping"), to: "service")
            #expect(reply.string == "re: ping")
            #expect(await poll(timeout: .seconds(60)) { received.values.count == 2 })
            #expect(received.values.map(\.string) == ["one", "two"])
            #expect(received.values[1].headers.fields.map(\.value) == ["V", "W"])
            do {
                _ = try await client.request(ByteBuffer(), to: "nobody.here")
                Issue.record("a request nobody serves succeeded")
            } catch let error as NATSError {
                guard case .noResponders = error else {
                    Issue.record("\(error)")
                    return
                }
            }
            await client.close()
            #expect(throws: NATSError.closed) { try client.publish(ByteBuffer(), to: "t.a") }
        }
    }

    @Test("X2: user/password and token authentication; wrong credentials are a typed error")
    func authentication() async throws {
        try await withNATSServer(arguments: ["--user", "alice", "--pass", "s3cret"]) { server in
            let client = try await connectedClient(server) {
                $0.authentication = .userPassword(user: "alice", password: "s3cret")
            }
            try await client.flush()
            await client.close()
            let fromURL = NATSClient(
                configuration: try NATSClientConfiguration(server: "nats://alice:s3cret@127.0.0.1:\(server.port)"),
                logger: quietLogger)
            try await fromURL.connect()
            await fromURL.close()
            let wrong = NATSClient(
                configuration: try NATSClientConfiguration(server: "nats://alice:nope@127.0.0.1:\(server.port)"),
                logger: quietLogger)
            await #expect(throws: NATSError.self) { try await wrong.connect() }
        }
        try await withNATSServer(arguments: ["--auth", "t0ken"]) { server in
            let client = try await connectedClient(server) { $0.authentication = .token("t0ken") }
            try await client.flush()
            await client.close()
            let none = NATSClient(configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger)
            await #expect(throws: NATSError.self) { try await none.connect() }
        }
    }

    @Test(
        "X2: after a lost connection the client reconnects and resubscribes; a full outbound buffer is a typed, counted error"
    )
    func reconnectAndBackpressure() async throws {
        try await withNATSServer { server in
            let client = try await connectedClient(server) { $0.maximumOutboundBytes = 4096 }
            let received = Collected<String>()
            try client.subscribe(to: "r") { received.append($0.string) }
            try await client.flush()
            await server.stop(immediately: true)
            #expect(await poll(timeout: .seconds(60)) { !client.isConnected })
            var refused = 0
            for _ in 0..<100 {
                do {
                    try client.publish(ByteBuffer(string: String(repeating: "x", count: 100)), to: "r")
                } catch NATSError.outboundBufferFull {
                    refused += 1
                }
            }
            #expect(refused > 0)
            #expect(client.statistics.outboundBufferFull == refused)
            try await server.start()
            #expect(await poll(timeout: .seconds(60)) { client.isConnected })
            try client.publish(ByteBuffer(string: "after"), to: "r")
            #expect(await poll(timeout: .seconds(60)) { received.values.contains("after") })
            // What was buffered while disconnected went out after the subscriptions.
            #expect(received.values.count == 100 - refused + 1)
            #expect(client.statistics.disconnects == 1 && client.statistics.connects == 2)
            await client.close()
        }
    }

    @Test(
        "X2: publishes from several threads, in bursts and one at a time, all go out without a flush, in order per publisher"
    )
    func writesAreGatheredAndNoneIsLeftBehind() async throws {
        try await withNATSServer { server in
            let publisher = try await connectedClient(server)
            let subscriber = try await connectedClient(server)
            let received = Collected<String>()
            try subscriber.subscribe(to: "w.>") { received.append($0.subject + " " + $0.string) }
            try await subscriber.flush()
            // Bursts from four tasks at once: the event loop gathers them while it writes.
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for task in 0..<4 {
                    tasks.addTask {
                        for index in 0..<5_000 {
                            try publisher.publish(ByteBuffer(string: String(index)), to: "w.\(task)")
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            #expect(await poll(timeout: .seconds(60)) { received.values.count == 20_000 })
            for task in 0..<4 {
                let values = received.values.filter { $0.hasPrefix("w.\(task) ") }
                #expect(values == (0..<5_000).map { "w.\(task) \($0)" })
            }
            // Then single messages after the gathering stopped: each goes out by itself, no flush.
            for index in 0..<3 {
                try publisher.publish(ByteBuffer(string: "single \(index)"), to: "w.single")
                #expect(await poll(timeout: .seconds(60)) { received.values.contains("w.single single \(index)") })
            }
            await publisher.close()
            await subscriber.close()
        }
    }

    @Test("X2: a stream that exists with another configuration is a clear error")
    func streamMismatch() async throws {
        try await withNATSServer { server in
            let client = try await connectedClient(server)
            let jetStream = JetStream(client: client)
            try await jetStream.createStream(
                JetStreamStreamConfiguration(
                    name: "EDS", subjects: ["eds.>"], storage: .memory, duplicateWindow: 120_000_000_000))
            let bridge = NATSBridge(
                bus: EventBus(), events: try registry(),
                transport: NATSJetStreamTransport(client: client, configuration: NATSBridgeConfiguration()),
                logger: quietLogger)
            do {
                try await bridge.run()
                Issue.record("started against a mismatching stream")
            } catch let error as NATSBridgeError {
                guard case .configurationMismatch(let detail) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(detail.contains("storage is memory, expected file"))
            }
        }
    }
}
