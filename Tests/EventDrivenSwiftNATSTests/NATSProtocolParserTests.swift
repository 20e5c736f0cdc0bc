// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore
import Testing

@testable import EventDrivenSwiftNATS

/// The protocol parser and encoder, pure: no network (SPEC X2).
@Suite("NATS protocol parser")
struct NATSProtocolParserTests {
    let parser = NATSProtocolParser()

    func frames(_ text: String) throws -> [NATSServerFrame] {
        var buffer = ByteBuffer(string: text)
        var frames: [NATSServerFrame] = []
        while let frame = try parser.parse(&buffer) { frames.append(frame) }
        #expect(buffer.readableBytes == 0)
        return frames
    }

    @Test("X2: INFO, PING, PONG, +OK and -ERR")
    func controlOperations() throws {
        let parsed = try frames(
            "INFO {\"server_id\":\"S\",\"version\":\"2.9.10\",\"headers\":true,\"max_payload\":1048576,\"jetstream\":true}\r\n"
                + "PING\r\nPONG\r\n+OK\r\n-ERR 'Authorization Violation'\r\n")
        #expect(parsed.count == 5)
        guard case .info(let info) = parsed[0] else {
            Issue.record("not INFO")
            return
        }
        #expect(info.serverID == "S" && info.version == "2.9.10" && info.headers && info.jetStream)
        guard case .ping = parsed[1], case .pong = parsed[2], case .ok = parsed[3] else {
            Issue.record("PING/PONG/+OK")
            return
        }
        guard case .error(let detail) = parsed[4] else {
            Issue.record("not -ERR")
            return
        }
        #expect(detail == "Authorization Violation")
    }

    @Test("X2: MSG with and without a reply subject, empty payloads included")
    func messages() throws {
        let parsed = try frames("MSG a.b 1 5\r\nhello\r\nMSG a.c 22 _INBOX.x.1 0\r\n\r\n")
        guard case .message(let first) = parsed[0], case .message(let second) = parsed[1] else {
            Issue.record("not MSG")
            return
        }
        #expect(first.subject == "a.b" && first.subscriptionID == 1 && first.replyTo == nil && first.string == "hello")
        #expect(second.subject == "a.c" && second.subscriptionID == 22 && second.replyTo == "_INBOX.x.1")
        #expect(second.payload.readableBytes == 0)
    }

    @Test("X2: HMSG headers, repeated names, status lines")
    func headers() throws {
        let block = "NATS/1.0\r\nNats-Msg-Id: abc\r\nX: 1\r\nX: 2\r\n\r\n"
        let body = "{\"a\":1}"
        let text =
            "HMSG eds.orders.placed 3 $JS.ACK.EDS.w.1.2.3.4.5 \(block.utf8.count) \(block.utf8.count + body.utf8.count)\r\n"
            + block + body + "\r\n"
        guard case .message(let message) = try frames(text).first else {
            Issue.record("not HMSG")
            return
        }
        #expect(message.headers["nats-msg-id"] == "abc")
        #expect(message.headers.fields.filter { $0.name == "X" }.map(\.value) == ["1", "2"])
        #expect(message.string == body)
        #expect(message.replyTo == "$JS.ACK.EDS.w.1.2.3.4.5")

        let status = "NATS/1.0 408 Request Timeout\r\nNats-Pending-Messages: 1\r\n\r\n"
        guard
            case .message(let timeout) = try frames(
                "HMSG _INBOX.p 4 \(status.utf8.count) \(status.utf8.count)\r\n\(status)\r\n"
            ).first
        else {
            Issue.record("not HMSG")
            return
        }
        #expect(timeout.headers.status == 408)
        #expect(timeout.headers.statusDescription == "Request Timeout")
        #expect(timeout.payload.readableBytes == 0)
    }

    @Test("X2: a frame split at every byte is parsed once it is whole")
    func partialInput() throws {
        let block = "NATS/1.0\r\nK: V\r\n\r\n"
        let text =
            "PING\r\nHMSG s 9 r \(block.utf8.count) \(block.utf8.count + 3)\r\n\(block)abc\r\nMSG t 1 2\r\nhi\r\n"
        let bytes = Array(text.utf8)
        var buffer = ByteBuffer()
        var parsed: [NATSServerFrame] = []
        for byte in bytes {
            buffer.writeInteger(byte)
            while let frame = try parser.parse(&buffer) { parsed.append(frame) }
        }
        #expect(parsed.count == 3)
        guard case .message(let message) = parsed[1] else {
            Issue.record("not HMSG")
            return
        }
        #expect(message.headers["K"] == "V" && message.string == "abc" && message.replyTo == "r")
    }

    @Test("X2: bytes that are not the protocol are typed errors, never a crash")
    func protocolErrors() throws {
        for bad in [
            "HELLO\r\n", "MSG a\r\n", "MSG a x 1\r\nx\r\n", "MSG a 1 3\r\nabcXY", "HMSG a 1 5 3\r\nabc\r\n",
            "INFO {not json}\r\n",
        ] {
            var buffer = ByteBuffer(string: bad)
            #expect(throws: NATSError.self, "\(bad)") {
                while try parser.parse(&buffer) != nil {}
            }
        }
        var long = ByteBuffer(string: String(repeating: "x", count: 5000))
        #expect(throws: NATSError.self) { _ = try parser.parse(&long) }
    }

    @Test("X2: the encoder writes PUB, HPUB, SUB and UNSUB as the protocol says")
    func encoder() {
        var out = ByteBuffer()
        NATSCommandEncoder.publish(
            subject: "a", replyTo: nil, headers: nil, payload: ByteBuffer(string: "xy"), into: &out)
        NATSCommandEncoder.publish(
            subject: "b", replyTo: "r", headers: NATSHeaders([("K", "V")]), payload: ByteBuffer(string: "z"), into: &out
        )
        NATSCommandEncoder.subscribe(subject: "c.>", queue: "q", sid: 7, into: &out)
        NATSCommandEncoder.unsubscribe(sid: 7, into: &out)
        let headerBlock = "NATS/1.0\r\nK: V\r\n\r\n"
        #expect(
            String(buffer: out)
                == "PUB a 2\r\nxy\r\nHPUB b r \(headerBlock.utf8.count) \(headerBlock.utf8.count + 1)\r\n\(headerBlock)z\r\n"
                + "SUB c.> q 7\r\nUNSUB 7\r\n")
    }

    @Test("X2: JetStream ack subjects and publish acks are read without a JSON decoder")
    func jetStreamReplies() throws {
        let ack = try JetStreamPublishAck.parse("{\"stream\":\"EDS\",\"seq\":42,\"duplicate\":true}")
        #expect(ack == JetStreamPublishAck(stream: "EDS", sequence: 42, duplicate: true))
        #expect(try JetStreamPublishAck.parse("{\"stream\":\"EDS\", \"seq\":7}").duplicate == false)
        #expect(throws: JetStreamAPIError.self) {
            try JetStreamPublishAck.parse("{\"error\":{\"code\":503,\"err_code\":10039,\"description\":\"no\"}}")
        }
        #expect(throws: JetStreamAPIError.self) { try JetStreamPublishAck.parse("{\"stream\":\"EDS\"}") }
        #expect(throws: JetStreamAPIError.self) { try JetStreamPublishAck.parse("{\"stream\":\"EDS\",\"seq\":\"x\"}") }
        let withDomain = try JetStreamPublishAck.parse(
            "{\"stream\":\"error\",\"domain\":\"hub\",\"seq\":5,\"duplicate\":false}")
        #expect(withDomain == JetStreamPublishAck(stream: "error", sequence: 5, duplicate: false))
        let fromBuffer = try JetStreamPublishAck.parse(ByteBuffer(string: "{\"stream\":\"S\",\"seq\":9}"))
        #expect(fromBuffer == JetStreamPublishAck(stream: "S", sequence: 9, duplicate: false))
        let client = NATSClient(configuration: NATSClientConfiguration(servers: []))
        func delivery(_ reply: String?) -> JetStreamMessage? {
            JetStreamMessage(NATSMessage(subject: "eds.x", replyTo: reply, payload: ByteBuffer()), client: client)
        }
        let short = delivery("$JS.ACK.EDS.workers.3.42.40.1700000000000000000.7")
        #expect(short?.deliveryCount == 3 && short?.streamSequence == 42)
        let long = delivery("$JS.ACK.hub.ACCHASH.EDS.workers.2.99.98.1700000000000000000.0.RANDOM")
        #expect(long?.deliveryCount == 2 && long?.streamSequence == 99)
        #expect(delivery("_INBOX.x") == nil && delivery(nil) == nil && delivery("$JS.ACK.EDS.w.x.1.2.3.4") == nil)
        #expect(delivery("$JS.ACK.EDS.w.1..2.3.4") == nil && delivery("$JS.ACK.EDS.w.1.2.3.4.5.6") == nil)
        #expect(
            delivery("$JS.ACK.EDS.w.1a.2.3.4.5") == nil && delivery("$JS.ACK.EDS.w.10.20.3.4.5")?.streamSequence == 20)
    }

    @Test("X2: header names match whatever the case of their letters, and only letters fold")
    func headerNamesIgnoreCase() {
        var headers = NATSHeaders([("Nats-Msg-Id", "a"), ("X[1]", "b")])
        #expect(headers["nats-msg-id"] == "a" && headers["NATS-MSG-ID"] == "a" && headers["Nats-Msg-Id"] == "a")
        #expect(headers["Nats-Msg-Ie"] == nil && headers["Nats-Msg-I"] == nil && headers["Nats-Msg-Idx"] == nil)
        #expect(headers["x[1]"] == "b" && headers["X{1}"] == nil)
        headers["NATS-msg-ID"] = "c"
        #expect(headers.fields.map(\.name) == ["X[1]", "NATS-msg-ID"] && headers["Nats-Msg-Id"] == "c")
    }

    @Test(
        "X4: a publish ack is a JSON object with a quoted stream and a numeric seq, from the stream expected: a quoted seq, no braces or another stream is no ack"
    )
    func looseAcksAreRefused() throws {
        for body in [
            #"{"stream":"EDS","seq":"1"}"#, #""stream":"EDS","seq":1"#, #"{"stream":"EDS","seq":1"#,
            #""stream":"EDS","seq":1}"#, #"{"stream":EDS,"seq":1}"#, #"{"stream":"","seq":1}"#,
            #"junk "stream":"EDS","seq":1 junk"#,
        ] {
            #expect(throws: JetStreamAPIError.self, "\(body)") { try JetStreamPublishAck.parse(body) }
        }
        #expect(try JetStreamPublishAck.parse(" {\"stream\":\"EDS\",\"seq\":1}\r\n").sequence == 1)
        let other = ByteBuffer(string: #"{"stream":"OTHER","seq":1}"#)
        #expect(throws: JetStreamAPIError.self) { try JetStreamPublishAck.parse(other, from: "EDS") }
        #expect(try JetStreamPublishAck.parse(other, from: "OTHER").sequence == 1)
        // An unreadable ack's text is cut short.
        do {
            _ = try JetStreamPublishAck.parse(String(repeating: "x", count: 100_000))
            Issue.record("no error")
        } catch let error as JetStreamAPIError {
            #expect((error.errorDescription ?? "").utf8.count < 400)
        }
    }

    @Test(
        "X4: a small message read after a large one does not keep the large read buffer alive: its payload and header block are copied out, a large payload is not"
    )
    func smallPartsDoNotPinTheReadBuffer() throws {
        var parser = NATSProtocolParser()
        parser.maximumPayload = 16 * 1024 * 1024
        let big = 8 * 1024 * 1024
        let headers = "NATS/1.0\r\nNo colon\r\n\r\n"
        var buffer = ByteBuffer(string: "MSG orphan 9 \(big)\r\n")
        buffer.writeRepeatingByte(UInt8(ascii: "x"), count: big)
        buffer.writeString("\r\nMSG s 1 30\r\n\(String(repeating: "y", count: 30))\r\n")
        buffer.writeString("HMSG s 1 \(headers.utf8.count) \(headers.utf8.count + 2)\r\n\(headers)ok\r\n")
        var messages: [NATSMessage] = []
        while let frame = try parser.parse(&buffer) {
            if case .message(let message) = frame { messages.append(message) }
        }
        #expect(messages.count == 3)
        guard messages.count == 3 else { return }
        #expect(messages[0].payload.readableBytes == big)
        #expect(messages[1].payload.readableBytes == 30)
        #expect(messages[1].payload.storageCapacity < 4096, "\(messages[1].payload.storageCapacity) bytes held")
        #expect(String(buffer: messages[1].payload) == String(repeating: "y", count: 30))
        #expect(messages[2].headerError != nil)
        #expect(messages[2].rawHeaders.map { String(buffer: $0) } == headers)
        #expect((messages[2].rawHeaders?.storageCapacity ?? .max) < 4096)
        #expect(messages[2].payload.storageCapacity < 4096 && String(buffer: messages[2].payload) == "ok")
    }
}
