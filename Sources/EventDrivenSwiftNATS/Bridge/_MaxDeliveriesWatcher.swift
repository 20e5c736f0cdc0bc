// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// Turns the server's max-deliveries advisories for one durable consumer
/// (`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.<stream>.<consumer>`) into the messages they name,
/// read back from the stream: the messages that ran out of `max_deliver` because no worker
/// acknowledged them in time (one that hung, or died), which no handler ever saw fail.
///
/// The advisory subscription is in a queue group named after the consumer, so one process of
/// the group takes each; the dead letter's message id makes a repeat a duplicate the stream drops.
///
/// The subject is the server's own and is trusted: whoever may publish on it can have a message
/// stored on the consumer's subject copied to the dead letters by its sequence (the original and
/// the consumer are untouched; a message on another subject is refused), so the account's
/// permissions must deny clients publishing there. What a flood of them costs is bounded:
/// advisories wait in a buffer of `capacity` (1,024), a single task reads them back one at a
/// time, and one the buffer cannot take, whose message cannot be read back or is not on the
/// consumer's subject is dropped and counted in ``_TransportCounters/droppedAdvisories`` (logged
/// the first time, then every 1,000th).
final class _MaxDeliveriesWatcher: Sendable {
    private let subscription: NATSSubscription
    let deliveries: AsyncStream<any TransportDelivery>
    private let continuation: AsyncStream<any TransportDelivery>.Continuation
    private let advisories: AsyncStream<_Advisory>.Continuation
    private let reader: Task<Void, Never>

    /// How many messages read back may wait for the importer, which takes each at once (it only
    /// starts storing its copy).
    static let readBackCapacity = 16

    init(
        jetStream: JetStream, stream: String, consumer: String, subject: String, capacity: Int = 1_024,
        counters: _TransportCounters, logger: Logger
    ) throws {
        let (deliveries, continuation) = AsyncStream.makeStream(
            of: (any TransportDelivery).self, bufferingPolicy: .bufferingOldest(Self.readBackCapacity))
        self.deliveries = deliveries
        self.continuation = continuation
        let (pending, advisories) = AsyncStream.makeStream(
            of: _Advisory.self, bufferingPolicy: .bufferingOldest(max(1, capacity)))
        self.advisories = advisories
        // Taken into the buffer and not yet by the reader: what finish() leaves unread.
        let waiting = NIOLockedValueBox(0)
        let drop: @Sendable (Int, String) -> Void = { count, why in
            let total = counters.droppedAdvisories.add(count, ordering: .relaxed).newValue
            if (total - count) / 1_000 != total / 1_000 || total == count {
                logger.warning(
                    "max-deliveries advisories of \(stream) > \(consumer): \(why); \(total) dropped so far (their messages stay in the stream, not dead-lettered)"
                )
            }
        }
        subscription = try jetStream.client.subscribe(
            to: "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.\(stream).\(consumer)", queue: consumer
        ) { message in
            // Three numbers and two names kept of a payload of at most `max_payload`.
            guard
                let advisory = try? JSONDecoder().decode(_Advisory.self, from: Data(message.payload.readableBytesView)),
                advisory.stream ?? stream == stream, advisory.consumer ?? consumer == consumer
            else { return }
            waiting.withLockedValue { $0 += 1 }
            switch advisories.yield(advisory) {
            case .enqueued: break
            case .dropped:
                waiting.withLockedValue { $0 -= 1 }
                drop(1, "more than \(capacity) wait to be read back")
            case .terminated:
                waiting.withLockedValue { $0 -= 1 }
                drop(1, "arrived after the consumer finished")
            @unknown default:
                waiting.withLockedValue { $0 -= 1 }
            }
        }
        reader = Task {
            for await advisory in pending {
                waiting.withLockedValue { $0 -= 1 }
                let stored: _StoredDelivery
                do {
                    stored = try await Self.read(jetStream, stream: stream, advisory: advisory)
                } catch {
                    drop(1, "message \(advisory.streamSequence) not read back: \(error)")
                    continue
                }
                // Only the consumer's own messages: an advisory naming another is not the server's.
                guard stored.subject == subject else {
                    drop(1, "message \(advisory.streamSequence) is on \(stored.subject), not the consumer's \(subject)")
                    continue
                }
                if case .enqueued = continuation.yield(stored) { continue }
                drop(1, "message \(advisory.streamSequence) read back, not taken by the importer")
            }
            // Ended by finish(): what still waited is not read back.
            let left = waiting.withLockedValue { waiting in
                defer { waiting = 0 }
                return waiting
            }
            if left > 0 { drop(left, "the consumer finished with them unread") }
        }
    }

    /// Stops taking advisories; those not read back yet are dropped and counted.
    func finish() {
        subscription.unsubscribe()
        advisories.finish()
        reader.cancel()
        continuation.finish()
    }

    private struct _Advisory: Decodable, Sendable {
        var stream: String?
        var consumer: String?
        var streamSequence: UInt64
        var deliveries: Int
        enum CodingKeys: String, CodingKey {
            case stream
            case consumer
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

/// What a transport's consumers dropped.
final class _TransportCounters: Sendable {
    /// Max-deliveries advisories not read back and dead-lettered (see ``_MaxDeliveriesWatcher``).
    let droppedAdvisories = Atomic<Int>(0)
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
    var accepted: Int { subscription.accepted }
    var exhaustedDeliveries: AsyncStream<any TransportDelivery> {
        watcher?.deliveries ?? AsyncStream { $0.finish() }
    }

    func finish() {
        subscription.finish()
        watcher?.finish()
    }
}
