// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// Turns the server's max-deliveries advisories for one durable consumer
/// (`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.<stream>.<consumer>`) into the messages they name,
/// read back from the stream: the messages that ran out of `max_deliver` because no worker
/// acknowledged them in time (one that hung, or died), which no handler ever saw fail.
///
/// The advisory subscription is in a queue group named after the consumer, so one process of
/// the group takes each; the dead letter's message id makes a repeat a duplicate the stream drops.
final class _MaxDeliveriesWatcher: Sendable {
    private let jetStream: JetStream
    private let stream: String
    private let subscription: NATSSubscription
    let deliveries: AsyncStream<any TransportDelivery>
    private let continuation: AsyncStream<any TransportDelivery>.Continuation

    init(jetStream: JetStream, stream: String, consumer: String) throws {
        self.jetStream = jetStream
        self.stream = stream
        let (deliveries, continuation) = AsyncStream.makeStream(
            of: (any TransportDelivery).self, bufferingPolicy: .bufferingOldest(1_024))
        self.deliveries = deliveries
        self.continuation = continuation
        subscription = try jetStream.client.subscribe(
            to: "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.\(stream).\(consumer)", queue: consumer
        ) { message in
            guard
                let advisory = try? JSONDecoder().decode(_Advisory.self, from: Data(message.payload.readableBytesView))
            else { return }
            Task {
                guard let stored = try? await Self.read(jetStream, stream: stream, advisory: advisory) else { return }
                continuation.yield(stored)
            }
        }
    }

    func finish() {
        subscription.unsubscribe()
        continuation.finish()
    }

    private struct _Advisory: Decodable {
        var streamSequence: UInt64
        var deliveries: Int
        enum CodingKeys: String, CodingKey {
            case streamSequence = "stream_seq"
            case deliveries
        }
    }

    private struct _GetResponse: Decodable {
        struct Message: Decodable {
            var subject: String
            var seq: UInt64
            var hdrs: String?
            var data: String?
        }
        var message: Message?
        var error: JetStreamAPIError?
    }

    private struct _GetRequest: Encodable { var seq: UInt64 }

    /// The message of the advisory, as the stream stores it.
    private static func read(_ jetStream: JetStream, stream: String, advisory: _Advisory) async throws
        -> _StoredDelivery
    {
        let response: _GetResponse = try await jetStream.call(
            "STREAM.MSG.GET.\(stream)", body: _GetRequest(seq: advisory.streamSequence))
        if let error = response.error { throw error }
        guard let message = response.message else { throw NATSError.protocolError("STREAM.MSG.GET without a message") }
        var headers = NATSHeaders()
        var headerError: NATSError?
        var rawHeaders: ByteBuffer?
        if let hdrs = message.hdrs, let block = Data(base64Encoded: hdrs) {
            do {
                headers = try NATSProtocolParser.parseHeaders(ByteBuffer(bytes: block))
            } catch let error as NATSError {
                headerError = error
                rawHeaders = ByteBuffer(bytes: block)
            }
        }
        let body = message.data.flatMap { Data(base64Encoded: $0) } ?? Data()
        return _StoredDelivery(
            subject: message.subject, headers: headers, payload: ByteBuffer(bytes: body),
            deliveryCount: max(1, advisory.deliveries), headerError: headerError, rawHeaders: rawHeaders,
            stableID: "\(stream):\(message.seq)")
    }
}

/// A message read back from its stream: nothing to settle (the consumer has given it up).
struct _StoredDelivery: TransportDelivery {
    let subject: String
    let headers: NATSHeaders
    let payload: ByteBuffer
    let deliveryCount: Int
    let headerError: NATSError?
    let rawHeaders: ByteBuffer?
    let stableID: String

    func ack() throws {}
    func nak(delay: Duration?) throws {}
    func term() throws {}
}

/// A JetStream pull consumer and, for a durable one, its max-deliveries advisories.
final class _JetStreamConsumer: TransportConsumer {
    let subscription: JetStreamPullSubscription
    let watcher: _MaxDeliveriesWatcher?

    init(subscription: JetStreamPullSubscription, watcher: _MaxDeliveriesWatcher?) {
        self.subscription = subscription
        self.watcher = watcher
    }

    func fetch(batch: Int, expires: Duration) async throws {
        try await subscription.fetch(batch: batch, expires: expires)
    }
    func nextDeliveries() async -> [any TransportDelivery] { await subscription.nextDeliveries() }
    var isLost: Bool { subscription.isLost }
    var queued: Int { subscription.queued }
    var exhaustedDeliveries: AsyncStream<any TransportDelivery> {
        watcher?.deliveries ?? AsyncStream { $0.finish() }
    }

    func finish() {
        subscription.finish()
        watcher?.finish()
    }
}
