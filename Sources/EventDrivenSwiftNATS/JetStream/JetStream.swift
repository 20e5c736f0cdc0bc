// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore

/// The JetStream API the bridge needs, over a ``NATSClient``: streams, durable and ephemeral
/// pull consumers, publishing with acknowledgement, and fetching.
public struct JetStream: Sendable {
    /// The client it talks through.
    public let client: NATSClient
    /// The API's subject prefix.
    public var apiPrefix = "$JS.API"
    /// How long an API call waits for its answer.
    public var timeout: Duration = .seconds(5)

    /// A JetStream context on `client`.
    public init(client: NATSClient) {
        self.client = client
    }

    // MARK: Streams

    /// The stream's configuration, or `nil` when there is no such stream.
    /// - Throws: ``NATSError/protocolError(_:)`` for an answer with neither an error nor the
    ///   stream's configuration (`{}`).
    public func streamInfo(_ name: String) async throws -> JetStreamStreamConfiguration? {
        let response: _StreamInfoResponse = try await call("STREAM.INFO.\(name)", body: nil)
        if let error = response.error {
            if error.errorCode == JetStreamAPIError.streamNotFound { return nil }
            throw error
        }
        guard let config = response.config else {
            throw NATSError.protocolError("JetStream answer to STREAM.INFO.\(name) without the stream's config")
        }
        return config
    }

    /// Creates a stream.
    public func createStream(_ configuration: JetStreamStreamConfiguration) async throws {
        try await writeStream("STREAM.CREATE", configuration)
    }

    /// Changes a stream's configuration (subjects, duplicate window, replicas and limits; not its
    /// storage).
    public func updateStream(_ configuration: JetStreamStreamConfiguration) async throws {
        try await writeStream("STREAM.UPDATE", configuration)
    }

    /// Creates the stream when it is missing; when it exists, checks that it has the same storage
    /// and duplicate window and captures the wanted subjects, and applies changed replicas,
    /// `max_age` and `max_bytes` (an update).
    ///
    /// A broker that has just restarted may report the stream missing while it still recovers
    /// it, then refuse to create it because its subjects overlap the recovered one (10065): the
    /// check is then tried again, a few times, 200 ms apart, before the error is thrown. A
    /// stream reported missing, then refused as existing (10058: created meanwhile by another
    /// process), is looked up again at once, within the same few tries: a server that says both
    /// every time gets its last refusal (a ``JetStreamAPIError``) thrown back after six lookups.
    /// - Throws: ``NATSBridgeError/configurationMismatch(_:)`` naming each difference;
    ///   `CancellationError` once the task is cancelled, between two calls.
    public func ensureStream(_ wanted: JetStreamStreamConfiguration) async throws {
        try await ensureStream(wanted, retriesLeft: Self.ensureStreamAttempts - 1)
    }

    /// How many times ``ensureStream(_:)`` looks a stream up at most.
    static let ensureStreamAttempts = 6

    private func ensureStream(_ wanted: JetStreamStreamConfiguration, retriesLeft: Int) async throws {
        try Task.checkCancellation()
        guard let existing = try await streamInfo(wanted.name) else {
            try Task.checkCancellation()
            do {
                return try await createStream(wanted)
            } catch let error as JetStreamAPIError where error.errorCode == 10058 && retriesLeft > 0 {
                // Created meanwhile by another process.
                return try await ensureStream(wanted, retriesLeft: retriesLeft - 1)
            } catch let error as JetStreamAPIError where error.errorCode == 10065 && retriesLeft > 0 {
                try await Task.sleep(for: .milliseconds(200))
                return try await ensureStream(wanted, retriesLeft: retriesLeft - 1)
            }
        }
        var differences: [String] = []
        if existing.storage != wanted.storage {
            differences.append("storage is \(existing.storage.rawValue), expected \(wanted.storage.rawValue)")
        }
        if existing.duplicateWindow != wanted.duplicateWindow {
            differences.append(
                "duplicate window is \(existing.duplicateWindow) ns, expected \(wanted.duplicateWindow) ns")
        }
        let missing = wanted.subjects.filter { !existing.subjects.contains($0) }
        if !missing.isEmpty {
            differences.append("subjects \(existing.subjects) lack \(missing)")
        }
        guard differences.isEmpty else {
            throw NATSBridgeError.configurationMismatch("stream \(wanted.name): " + differences.joined(separator: "; "))
        }
        if existing.replicas != wanted.replicas || existing.maxAge != wanted.maxAge
            || existing.maxBytes != wanted.maxBytes
        {
            var update = wanted
            update.subjects = existing.subjects
            try await updateStream(update)
        }
    }

    private func writeStream(_ operation: String, _ configuration: JetStreamStreamConfiguration) async throws {
        let request = _StreamCreateRequest(
            name: configuration.name, subjects: configuration.subjects, storage: configuration.storage,
            duplicateWindow: configuration.duplicateWindow, numReplicas: configuration.replicas,
            maxAge: configuration.maxAge, maxBytes: configuration.maxBytes)
        let response: _StreamInfoResponse = try await call("\(operation).\(configuration.name)", body: request)
        if let error = response.error { throw error }
        // Success is the stream's info, its configuration in it: `{}` proves nothing.
        guard response.config?.name == configuration.name else {
            throw NATSError.protocolError(
                "JetStream answer to \(operation).\(configuration.name) without the stream's config")
        }
    }

    // MARK: Consumers

    /// A consumer's configuration, or `nil` when there is no such consumer.
    public func consumerInfo(stream: String, name: String) async throws -> JetStreamConsumerConfiguration? {
        let response: _ConsumerInfoResponse = try await call("CONSUMER.INFO.\(stream).\(name)", body: nil)
        if let error = response.error {
            if error.errorCode == JetStreamAPIError.consumerNotFound || error.code == 404 { return nil }
            throw error
        }
        return response.config
    }

    /// Creates a pull consumer, durable when the configuration has a durable name, and returns
    /// its name; for an existing durable consumer, applies the settings a consumer may change
    /// (`ack_wait`, `max_deliver`, `max_ack_pending`). Through the consumer API of nats-server
    /// 2.9 and later, `CONSUMER.CREATE.<stream>.<name>.<filter>`.
    public func createConsumer(stream: String, _ configuration: JetStreamConsumerConfiguration) async throws -> String {
        let subject =
            configuration.durableName.map { "CONSUMER.CREATE.\(stream).\($0).\(configuration.filterSubject)" }
            ?? "CONSUMER.CREATE.\(stream)"
        let response: _ConsumerInfoResponse = try await call(
            subject, body: _ConsumerCreateRequest(streamName: stream, config: configuration))
        if let error = response.error { throw error }
        guard let name = response.name else {
            throw JetStreamAPIError(code: 0, errorCode: nil, errorDescription: "consumer created without a name")
        }
        return name
    }

    /// Creates a durable consumer when it is missing; when it exists, checks the settings that
    /// decide what it delivers (filter subject, ack policy) and applies changed `ack_wait`,
    /// `max_deliver` and `max_ack_pending`.
    /// - Throws: ``NATSBridgeError/configurationMismatch(_:)`` naming each difference.
    public func ensureConsumer(stream: String, _ wanted: JetStreamConsumerConfiguration) async throws -> String {
        guard let durable = wanted.durableName else { return try await createConsumer(stream: stream, wanted) }
        guard let existing = try await consumerInfo(stream: stream, name: durable) else {
            return try await createConsumer(stream: stream, wanted)
        }
        var differences: [String] = []
        if existing.filterSubject != wanted.filterSubject {
            differences.append("filter subject is \(existing.filterSubject), expected \(wanted.filterSubject)")
        }
        if existing.ackPolicy != wanted.ackPolicy {
            differences.append("ack policy is \(existing.ackPolicy), expected \(wanted.ackPolicy)")
        }
        guard differences.isEmpty else {
            throw NATSBridgeError.configurationMismatch(
                "consumer \(durable) on \(stream): " + differences.joined(separator: "; "))
        }
        if existing.ackWait != wanted.ackWait || existing.maxDeliver != wanted.maxDeliver
            || existing.maxAckPending != wanted.maxAckPending
        {
            return try await createConsumer(stream: stream, wanted)
        }
        return durable
    }

    // MARK: Publishing

    /// Publishes to a stream's subject and calls `completion` with the server's acknowledgement,
    /// on an event loop. The publish itself never waits.
    public func publish(
        _ payload: ByteBuffer, to subject: String, headers: NATSHeaders?, timeout: Duration? = nil,
        completion: @escaping @Sendable (Result<JetStreamPublishAck, any Error>) -> Void
    ) throws {
        try client.request(payload, to: subject, headers: headers, timeout: timeout ?? self.timeout) { result in
            switch result {
            case .success(let reply):
                completion(Result { try JetStreamPublishAck.parse(reply.payload) })
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }

    /// Publishes to a stream's subject and returns the server's acknowledgement.
    public func publish(_ payload: ByteBuffer, to subject: String, headers: NATSHeaders?) async throws
        -> JetStreamPublishAck
    {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try publish(payload, to: subject, headers: headers) { continuation.resume(with: $0) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    // MARK: Calls

    /// How many bytes of an unreadable answer an error quotes.
    static let quotedReplyLength = 200

    func call<Response: Decodable>(_ operation: String, body: (any Encodable)?) async throws -> Response {
        var payload = ByteBuffer()
        if let body { payload = ByteBuffer(bytes: try JSONEncoder().encode(body)) }
        let reply = try await client.request(payload, to: "\(apiPrefix).\(operation)", timeout: timeout)
        do {
            return try JSONDecoderCache.decoder.decode(Response.self, from: reply.bytes)
        } catch {
            // A short prefix: the answer may be megabytes of anything.
            let view = reply.payload.readableBytesView
            let text = String(decoding: view.prefix(Self.quotedReplyLength), as: UTF8.self)
            throw NATSError.protocolError(
                "unreadable JetStream response to \(operation): \(text)\(view.count > Self.quotedReplyLength ? "…" : "")"
            )
        }
    }
}
