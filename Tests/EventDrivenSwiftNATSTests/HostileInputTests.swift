// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// Bytes from the network are hostile (SPEC X4, issue 27 §1): numbers beyond `Int`, sizes beyond
/// `max_payload`, malformed headers, and values that would split a frame.
@Suite("NATS hostile input", .serialized, .timeLimit(.minutes(5)))
struct HostileInputTests {
    let parser = NATSProtocolParser()

    /// The parser's verdict on `text` fed at once: the frames, or the error.
    func parse(_ text: String, parser: NATSProtocolParser? = nil) -> Result<[NATSServerFrame], NATSError> {
        let parser = parser ?? self.parser
        var buffer = ByteBuffer(string: text)
        var frames: [NATSServerFrame] = []
        do {
            while let frame = try parser.parse(&buffer) { frames.append(frame) }
            return .success(frames)
        } catch let error as NATSError {
            return .failure(error)
        } catch {
            return .failure(.protocolError("\(error)"))
        }
    }

    func isProtocolError(_ result: Result<[NATSServerFrame], NATSError>) -> Bool {
        if case .failure(.protocolError) = result { return true }
        return false
    }

    @Test(
        "X4: sizes beyond Int, beyond UInt64 and beyond max_payload are protocol errors, announced alone (no allocation)",
        arguments: [
            "MSG eds.orders.placed 1 9300000000000000000\r\n", "MSG s 1 9223372036854775807\r\n",
            "MSG s 1 18446744073709551615\r\n", "MSG s 1 99999999999999999999999\r\n",
            "MSG s 1 2147483648\r\n", "MSG s 1 1048577\r\n",
            "HMSG s 1 9300000000000000000 9300000000000000001\r\n", "HMSG s 1 12 9223372036854775807\r\n",
            "MSG s 18446744073709551616 1\r\nx\r\n", "MSG s 1 -1\r\n",
        ])
    func hugeSizes(frame: String) {
        #expect(isProtocolError(parse(frame)))
    }

    @Test("X4: INFO's max_payload becomes the cap; a message within it is read")
    func maxPayloadFromInfo() {
        var small = NATSProtocolParser()
        small.maximumPayload = NATSProtocolParser.capped(maxPayload: 2048)
        #expect(isProtocolError(parse("MSG s 1 2049\r\n", parser: small)))
        let body = String(repeating: "x", count: 2048)
        guard case .success(let frames) = parse("MSG s 1 2048\r\n\(body)\r\n", parser: small), frames.count == 1 else {
            Issue.record("a message within the cap was refused")
            return
        }
        // A server cannot raise the cap beyond 64 MiB.
        #expect(NATSProtocolParser.capped(maxPayload: Int.max) == 64 * 1024 * 1024)
        #expect(NATSProtocolParser.capped(maxPayload: -5) == 1024)
    }

    @Test(
        "X4: a malformed header block (status beyond Int, no NATS/1.0, no colon) is that message's error alone",
        arguments: [
            "NATS/1.0 9300000000000000000\r\n\r\n", "NATS/1.0 99999999999999999999999 Huge\r\n\r\n",
            "HTTP/1.1 200\r\nA: b\r\n\r\n", "NATS/1.0\r\nno colon here\r\n\r\n", "NATS/1.0 12\r\n\r\n",
        ])
    func malformedHeaders(block: String) {
        let text =
            "MSG a 1 2\r\nok\r\nHMSG s 1 r \(block.utf8.count) \(block.utf8.count + 4)\r\n\(block)body\r\nPING\r\n"
        guard case .success(let frames) = parse(text), frames.count == 3 else {
            Issue.record("the frames around a malformed header block were lost: \(parse(text))")
            return
        }
        guard case .message(let message) = frames[1] else {
            Issue.record("not a message")
            return
        }
        #expect(message.headerError != nil)
        #expect(message.rawHeaders.map { String(buffer: $0) } == block)
        #expect(message.string == "body" && message.headers.isEmpty)
        guard case .ping = frames[2] else {
            Issue.record("the next frame was not read")
            return
        }
    }

    @Test("X4: integers are read with overflow checks")
    func integers() {
        #expect(NATSProtocolParser.integer(Array("18446744073709551615".utf8)) == UInt64.max)
        #expect(NATSProtocolParser.integer(Array("18446744073709551616".utf8)) == nil)
        #expect(NATSProtocolParser.integer(Array("99999999999999999999".utf8)) == nil)
        #expect(NATSProtocolParser.integer(Array("+1".utf8)) == nil)
    }

    @Test("X4: a delivery count of 0 or beyond Int, or a sequence beyond UInt64, is no JetStream delivery")
    func ackSubjectNumbers() throws {
        let client = NATSClient(configuration: try NATSClientConfiguration(server: "nats://127.0.0.1:1"))
        func delivery(_ reply: String) -> JetStreamMessage? {
            JetStreamMessage(NATSMessage(subject: "s", replyTo: reply, payload: ByteBuffer()), client: client)
        }
        #expect(delivery("$JS.ACK.EDS.w.1.2.3.4.5")?.deliveryCount == 1)
        #expect(delivery("$JS.ACK.EDS.w.0.2.3.4.5") == nil)
        #expect(delivery("$JS.ACK.EDS.w.9300000000000000000.2.3.4.5") == nil)
        #expect(delivery("$JS.ACK.EDS.w.99999999999999999999999.2.3.4.5") == nil)
        #expect(delivery("$JS.ACK.EDS.w.1.99999999999999999999999.3.4.5") == nil)
        #expect(throws: (any Error).self) {
            try JetStreamPublishAck.parse("{\"stream\":\"S\",\"seq\":99999999999999999999}")
        }
    }

    @Test("X4: CR or LF in a header value, an invalid subject or reply subject: a typed error at the call")
    func frameSplittingArguments() async throws {
        let server = try await ScriptedNATSServer()
        defer { Task { await server.shutdown() } }
        let client = NATSClient(configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger)
        try await client.connect()
        let evil = NATSHeaders([("Eds-Error", "oops\r\nPUB injected 1\r\nX")])
        #expect(throws: NATSError.self) { try client.publish(ByteBuffer(string: "x"), to: "a", headers: evil) }
        #expect(throws: NATSError.self) {
            try client.publish(ByteBuffer(string: "x"), to: "a", headers: NATSHeaders([("Bad Name", "v")]))
        }
        for subject in ["a b", "a..b", ".a", "a.", "a\r\nPUB x 1", "a.*", "a.>", ""] {
            #expect(throws: NATSError.self, "subject \(subject.debugDescription)") {
                try client.publish(ByteBuffer(string: "x"), to: subject)
            }
            #expect(throws: NATSError.self, "request to \(subject.debugDescription)") {
                try client.request(ByteBuffer(string: "x"), to: subject) { _ in }
            }
        }
        #expect(throws: NATSError.self) {
            try client.publish(ByteBuffer(string: "x"), to: "a", replyTo: "r\r\nPUB x 1")
        }
        try await client.flush()
        #expect(!server.lines(of: 1).contains { $0.hasPrefix("PUB injected") || $0.hasPrefix("PUB x") })
        await client.close()
    }

    @Test("X4: hostile frames after the handshake: a typed protocol error, the connection re-established, no trap")
    func hostileFramesReconnect() async throws {
        let frames = [
            "MSG eds.orders.placed 1 9300000000000000000\r\n", "MSG s 1 9223372036854775807\r\n",
            "MSG s 1 2147483648\r\n", "HMSG s 1 9300000000000000000 9300000000000000001\r\n",
            "MSG s 99999999999999999999999 1\r\nx\r\n", String(repeating: "A", count: 5000),
        ]
        let server = try await ScriptedNATSServer()
        defer { Task { await server.shutdown() } }
        var configuration = try NATSClientConfiguration(server: server.url)
        configuration.reconnect.initialDelay = .milliseconds(1)
        let client = NATSClient(configuration: configuration, logger: quietLogger)
        try await client.connect()
        for (index, frame) in frames.enumerated() {
            let connection = index + 1
            #expect(await poll(timeout: .seconds(60)) { server.lines(of: connection).contains("PING") })
            server.send(frame, on: connection)
            #expect(
                await poll(timeout: .seconds(60)) { server.isClosed(connection) }, "frame \(index) kept the connection")
            #expect(await poll(timeout: .seconds(60)) { client.statistics.connects == connection + 1 })
        }
        #expect(client.statistics.protocolErrors == frames.count)
        // The last connection works.
        try await client.flush()
        await client.close()
    }

    @Test(
        "X4: messages with malformed headers (a status beyond Int included) reach their subscription flagged; the connection goes on"
    )
    func malformedHeadersKeepTheConnection() async throws {
        let server = try await ScriptedNATSServer()
        defer { Task { await server.shutdown() } }
        let client = NATSClient(configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger)
        try await client.connect()
        let received = Collected<NATSMessage>()
        let subscription = try client.subscribe(to: "s") { received.append($0) }
        try await client.flush()
        let block = "NATS/1.0\r\nno colon\r\n\r\n"
        let status = "NATS/1.0 9300000000000000000 Huge\r\n\r\n"
        server.send(
            "MSG s \(subscription.id) 2\r\nok\r\nHMSG s \(subscription.id) \(block.utf8.count) \(block.utf8.count + 3)\r\n"
                + "\(block)bad\r\nHMSG s \(subscription.id) \(status.utf8.count) \(status.utf8.count + 4)\r\n"
                + "\(status)huge\r\nMSG s \(subscription.id) 3\r\nyes\r\n", on: 1)
        #expect(await poll(timeout: .seconds(60)) { received.values.count == 4 })
        #expect(received.values.map(\.string) == ["ok", "bad", "huge", "yes"])
        #expect(received.values.map { $0.headerError != nil } == [false, true, true, false])
        try await client.flush()
        #expect(client.statistics.protocolErrors == 0 && client.statistics.connects == 1 && !server.isClosed(1))
        await client.close()
    }

    @Test("X4: messages(on:) holds at most its limit; what comes beyond is dropped and counted")
    func boundedMessageStream() async throws {
        let server = try await ScriptedNATSServer()
        defer { Task { await server.shutdown() } }
        let client = NATSClient(configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger)
        try await client.connect()
        let stream = try client.messages(on: "s", limit: 4)
        try await client.flush()
        let sid =
            server.lines(of: 1).compactMap { line -> String? in
                line.hasPrefix("SUB s ") ? String(line.split(separator: " ").last!) : nil
            }.first ?? "?"
        server.send(String(repeating: "MSG s \(sid) 1\r\nx\r\n", count: 10), on: 1)
        #expect(await poll(timeout: .seconds(60)) { client.statistics.messagesDropped == 6 })
        var iterator = stream.makeAsyncIterator()
        for _ in 0..<4 { #expect(await iterator.next()?.string == "x") }
        await client.close()
    }
}
