// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore

@testable import EventDrivenSwiftNATS

/// A memory stream `stream` on `<prefix>.>`, `messages` published to `<prefix>.x` in order, and a
/// pull subscription of a durable consumer `durable` of `<prefix>.x` (every message from the
/// first, a 30 s ack wait, 5 deliveries at most) holding at most `capacity` messages.
func pullSubscription(
    _ jetStream: JetStream, stream: String, prefix: String, durable: String, messages: [String] = [],
    capacity: Int = 2_048
) async throws -> JetStreamPullSubscription {
    try await jetStream.createStream(
        JetStreamStreamConfiguration(
            name: stream, subjects: ["\(prefix).>"], storage: .memory, duplicateWindow: 120_000_000_000))
    for message in messages {
        _ = try await jetStream.publish(ByteBuffer(string: message), to: "\(prefix).x", headers: nil)
    }
    let consumer = try await jetStream.createConsumer(
        stream: stream,
        JetStreamConsumerConfiguration(
            durableName: durable, deliverPolicy: "all", ackWait: 30_000_000_000, maxDeliver: 5,
            filterSubject: "\(prefix).x", maxAckPending: 1_000))
    return try JetStreamPullSubscription(jetStream: jetStream, stream: stream, consumer: consumer, capacity: capacity)
}

/// A client connected to the scripted `server` and a pull subscription of stream `S`, consumer
/// `C` (names the scripted answers do not check).
func pullSubscription(scriptedBy server: ScriptedNATSServer) async throws -> (NATSClient, JetStreamPullSubscription) {
    let client = NATSClient(configuration: try NATSClientConfiguration(server: server.url), logger: quietLogger)
    try await client.connect()
    return (client, try JetStreamPullSubscription(jetStream: JetStream(client: client), stream: "S", consumer: "C"))
}
