// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore

/// What the bridge needs from a broker. ``NATSJetStreamTransport`` is the one there is; a Redis
/// Streams or Kafka transport would conform the same way.
public protocol EventTransport: Sendable {
    /// Connects and makes sure the broker has where to store the events (for JetStream, the
    /// stream), checking what already exists.
    func start() async throws
    /// Writes what is pending and disconnects.
    func stop() async
    /// Publishes one event's message and calls `completion` once the broker has stored it (or
    /// says it already had it: `true`), or with the error.
    func publish(
        subject: String, headers: NATSHeaders, body: ByteBuffer,
        completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
    ) throws
    /// Opens a consumer of `subject`: shared by `group` when given, else one of this process's
    /// own that sees every event from now on.
    func openConsumer(subject: String, group: String?) async throws -> any TransportConsumer
    /// Opens the consumer of `subject` for `mode` (``NATSImportMode/durableBroadcast(_:)``
    /// included, where the broker can keep a consumer per instance).
    func openConsumer(subject: String, mode: NATSImportMode) async throws -> any TransportConsumer
    /// How many messages the broker gave up on were dropped before they could become
    /// ``TransportConsumer/exhaustedDeliveries`` (more arrived than could wait to be read back, or
    /// they could not be read back).
    var droppedExhaustedDeliveries: Int { get }
}

extension EventTransport {
    /// None, unless a transport says otherwise.
    public var droppedExhaustedDeliveries: Int { 0 }

    /// ``openConsumer(subject:group:)`` for `.broadcast` and `.group`; a transport that keeps no
    /// durable broadcast consumers refuses `.durableBroadcast`.
    public func openConsumer(subject: String, mode: NATSImportMode) async throws -> any TransportConsumer {
        switch mode {
        case .broadcast: return try await openConsumer(subject: subject, group: nil)
        case .group(let name): return try await openConsumer(subject: subject, group: name)
        case .durableBroadcast:
            throw NATSBridgeError.configurationMismatch("this transport has no durable broadcast consumers")
        }
    }
}

/// A broker-side cursor the bridge fetches deliveries from.
public protocol TransportConsumer: Sendable {
    /// Asks for up to `batch` deliveries and returns once that request has ended.
    func fetch(batch: Int, expires: Duration) async throws
    /// The deliveries that arrived and were not taken yet; waits while there is none; empty
    /// once ``finish()`` was called and nothing is left.
    func nextDeliveries() async -> [any TransportDelivery]
    /// Whether the consumer must be opened again (the broker lost it).
    var isLost: Bool { get }
    /// How many deliveries it accepted since it was opened, in all: those taken with
    /// ``nextDeliveries()`` and those still waiting to be taken, not those it dropped. Each is out
    /// from the broker until the importer concludes it (acknowledges it, sends it back, retries
    /// or dead-letters it): what it accepted less what was concluded is what the process holds,
    /// including a delivery taken and not yet counted by the importer, and bounds the fetches by
    /// ``NATSBridgeConfiguration/Consumers/maxHeld``.
    var accepted: Int { get }
    /// Messages the broker gave up delivering (out of attempts without an acknowledgement, a
    /// worker that hung or died), read back so that they become dead letters; ends with
    /// ``finish()``.
    var exhaustedDeliveries: AsyncStream<any TransportDelivery> { get }
    /// Stops taking deliveries.
    func finish()
}

/// One delivery of one message, and how to settle it.
public protocol TransportDelivery: Sendable {
    /// The subject it was published on.
    var subject: String { get }
    /// Its headers.
    var headers: NATSHeaders { get }
    /// Its body.
    var payload: ByteBuffer { get }
    /// How often it has been delivered, this time included.
    var deliveryCount: Int { get }
    /// Why its headers could not be decoded (the message is then dead-lettered), or `nil`.
    var headerError: NATSError? { get }
    /// Its header block as it arrived, when it could not be decoded.
    var rawHeaders: ByteBuffer? { get }
    /// An id that is the same on every delivery of the message, for one published without
    /// `Nats-Msg-Id` (for JetStream, `<stream>:<sequence>`).
    var stableID: String { get }
    /// Handled.
    func ack() throws
    /// Not handled; deliver again after `delay`.
    func nak(delay: Duration?) throws
    /// Never deliver again.
    func term() throws
    /// Still being handled: restart the ack wait.
    func inProgress() throws
}

extension TransportDelivery {
    /// Why its headers could not be decoded; `nil` (decoded) unless a transport says otherwise.
    public var headerError: NATSError? { nil }
    /// Its undecodable header block, when there is one; `nil` unless a transport says otherwise.
    public var rawHeaders: ByteBuffer? { nil }
    /// Does nothing, for a transport without an ack wait to restart.
    public func inProgress() throws {}
    /// An id for a message that came without `Nats-Msg-Id`; empty unless a transport says otherwise.
    public var stableID: String { "" }
}

extension JetStreamMessage: TransportDelivery {}

extension TransportConsumer {
    /// None, unless a transport says otherwise.
    public var exhaustedDeliveries: AsyncStream<any TransportDelivery> { AsyncStream { $0.finish() } }
}

extension JetStreamPullSubscription: TransportConsumer {
    /// See ``TransportConsumer/nextDeliveries()``.
    public func nextDeliveries() async -> [any TransportDelivery] {
        await nextMessages()
    }

    /// See ``TransportConsumer/isLost``.
    public var isLost: Bool { consumerGone }
}
