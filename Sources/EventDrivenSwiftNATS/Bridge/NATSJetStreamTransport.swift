// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore

/// The NATS JetStream transport: one stream (`EDS`, subjects `<prefix>.>`), durable pull
/// consumers for groups and ephemeral ones for broadcast.
public struct NATSJetStreamTransport: EventTransport {
    /// The client; its ``NATSClient/statistics`` count what went wrong on the wire.
    public let client: NATSClient
    /// The JetStream context.
    public let jetStream: JetStream
    /// The stream the events go to.
    public let stream: JetStreamStreamConfiguration
    /// How consumers are made.
    public let consumers: NATSBridgeConfiguration.Consumers
    /// The dead letters' own stream, when they have one.
    public let deadLetterStream: JetStreamStreamConfiguration?
    /// What its consumers dropped.
    let counters = _TransportCounters()

    /// A transport over `client` for the bridge configuration's streams, consumers and JetStream
    /// API prefix (or domain).
    public init(client: NATSClient, configuration: NATSBridgeConfiguration) {
        self.client = client
        var jetStream = JetStream(client: client)
        jetStream.apiPrefix = configuration.apiPrefix
        self.jetStream = jetStream
        self.stream = configuration.streamConfiguration
        self.deadLetterStream = configuration.deadLetterStreamConfiguration
        self.consumers = configuration.consumers
    }

    /// Connects and creates or checks the streams.
    /// - Throws: ``NATSBridgeError/configurationMismatch(_:)`` also for a dead-letter stream
    ///   whose subjects lie inside the events' stream.
    public func start() async throws {
        if !client.isConnected { try await client.connect() }
        try await jetStream.ensureStream(stream)
        if let deadLetterStream {
            let eventsPrefix = String(stream.subjects.first?.dropLast(1) ?? "")
            if deadLetterStream.subjects.contains(where: { $0.hasPrefix(eventsPrefix) }) {
                throw NATSBridgeError.configurationMismatch(
                    "dead-letter subjects \(deadLetterStream.subjects) lie inside the events' \(stream.subjects)")
            }
            try await jetStream.ensureStream(deadLetterStream)
        }
    }

    /// Flushes and closes the client.
    public func stop() async {
        await client.close()
    }

    /// Publishes with a JetStream acknowledgement, which must come from the stream the subject
    /// belongs to: ``deadLetterStream`` for its subjects, else ``stream``.
    public func publish(
        subject: String, headers: NATSHeaders, body: ByteBuffer,
        completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
    ) throws {
        let name = streamName(for: subject)
        try jetStream.publish(body, to: subject, headers: headers, timeout: consumers.publishTimeout) { result in
            completion(
                result.flatMap { ack in
                    guard ack.stream == name else {
                        return .failure(
                            JetStreamAPIError(
                                code: 0, errorCode: nil,
                                errorDescription:
                                    "publish ack from stream \(ack.stream.prefix(64).debugDescription), expected \(name)"
                            ))
                    }
                    return .success(ack.duplicate)
                })
        }
    }

    /// The name of the stream that stores `subject`: ``deadLetterStream`` when one of its
    /// subjects matches, else ``stream``.
    func streamName(for subject: String) -> String {
        if let deadLetterStream, deadLetterStream.subjects.contains(where: { Self.matches(subject, $0) }) {
            return deadLetterStream.name
        }
        return stream.name
    }

    /// Whether `subject` matches `pattern`: the same, or under a pattern that ends in `>`.
    static func matches(_ subject: String, _ pattern: String) -> Bool {
        guard pattern.hasSuffix(">") else { return subject == pattern }
        return subject.hasPrefix(pattern.dropLast()) && subject.count > pattern.count - 1
    }

    /// A durable consumer named after the group and the subject (`<group>_<subject with dots as
    /// underscores>`), whose max-deliveries advisories are watched, or an ephemeral one.
    public func openConsumer(subject: String, group: String?) async throws -> any TransportConsumer {
        try await openConsumer(subject: subject, mode: group.map { .group($0) } ?? .broadcast)
    }

    /// The consumer of `mode`:
    /// - `.group(name)`: durable `<name>_<subject with dots as underscores>`, from the stream's
    ///   start, shared by the group.
    /// - `.broadcast`: ephemeral, from now on, removed by the server
    ///   ``NATSBridgeConfiguration/Consumers/broadcastInactiveThreshold`` after its process went.
    /// - `.durableBroadcast(instance)`: durable `broadcast_<instance>_<subject…>`, from its
    ///   creation on, resumed after a restart, removed by the server
    ///   ``NATSBridgeConfiguration/Consumers/durableBroadcastInactiveThreshold`` after its last use.
    ///
    /// Each is a pull consumer with explicit acks, `ack_wait`, `max_deliver` and
    /// `max_ack_pending` from ``NATSBridgeConfiguration/Consumers``; the max-deliveries
    /// advisories of durable ones are watched.
    public func openConsumer(subject: String, mode: NATSImportMode) async throws -> any TransportConsumer {
        let underscored = subject.replacingOccurrences(of: ".", with: "_")
        let durable: String?
        let inactive: Int64?
        switch mode {
        case .broadcast:
            (durable, inactive) = (nil, Self.nanoseconds(consumers.broadcastInactiveThreshold))
        case .group(let name):
            (durable, inactive) = ("\(name)_\(underscored)", nil)
        case .durableBroadcast(let instance):
            (durable, inactive) = (
                "broadcast_\(instance)_\(underscored)", Self.nanoseconds(consumers.durableBroadcastInactiveThreshold)
            )
        }
        let isGroup: Bool
        if case .group = mode { isGroup = true } else { isGroup = false }
        let configuration = JetStreamConsumerConfiguration(
            durableName: durable, deliverPolicy: isGroup ? "all" : "new",
            ackWait: Self.nanoseconds(consumers.ackWait), maxDeliver: consumers.maxDeliver, filterSubject: subject,
            maxAckPending: consumers.maxAckPending, inactiveThreshold: inactive)
        let name = try await jetStream.ensureConsumer(stream: stream.name, configuration)
        let subscription = try JetStreamPullSubscription(
            jetStream: jetStream, stream: stream.name, consumer: name, capacity: consumers.maxHeld)
        // A durable consumer's messages that run out of deliveries become dead letters too.
        let watcher = try durable.map {
            try _MaxDeliveriesWatcher(
                jetStream: jetStream, stream: stream.name, consumer: $0, subject: subject, counters: counters,
                logger: client.logger)
        }
        return _JetStreamConsumer(subscription: subscription, watcher: watcher)
    }

    /// Max-deliveries advisories that did not become dead letters (see
    /// ``NATSBridgeStatistics/droppedAdvisories``).
    public var droppedExhaustedDeliveries: Int { counters.droppedAdvisories.load(ordering: .relaxed) }

    /// `duration` in nanoseconds, as the server takes it; one beyond `Int64` (292 years) is
    /// `Int64.max` (or `.min`), not an overflow.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.saturatingNanoseconds
    }
}
