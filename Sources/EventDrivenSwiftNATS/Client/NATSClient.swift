// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A small NATS client on SwiftNIO: what the event bridge needs, and no more.
///
/// It speaks the core protocol (`CONNECT`/`INFO`, `PUB`/`HPUB`, `SUB`/`UNSUB`, `MSG`/`HMSG`,
/// `PING`/`PONG`), request-reply through one wildcard inbox, user/password and token
/// authentication, and TLS through swift-nio-ssl. After a lost connection it reconnects with
/// backoff and re-establishes its subscriptions. Failures are typed (``NATSError``) and
/// counted (``statistics``); nothing is dropped without one or the other.
///
/// Publishing never waits for the socket: bytes are gathered, up to
/// ``NATSClientConfiguration/maximumOutboundBytes``, and written by the event loop: at once
/// after a quiet interval, then every 100 µs while they keep coming.
public final class NATSClient: Sendable {
    /// The configuration it was created with.
    public let configuration: NATSClientConfiguration
    let logger: Logger
    let group: any EventLoopGroup
    let counters = _NATSClientCounters()
    let state = NIOLockedValueBox(_ClientState())
    /// `<inbox prefix>.<random>`: replies to this client's requests arrive under it.
    let inboxPrefix: String
    /// `<inbox prefix>.<random>.`, the bytes a reply subject starts with.
    let replyPrefix: [UInt8]

    /// Creates a client; call ``connect()`` before using it.
    public init(
        configuration: NATSClientConfiguration, logger: Logger = Logger(label: "EventDrivenSwiftNATS"),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.logger = logger
        self.group = eventLoopGroup
        self.inboxPrefix = configuration.inboxPrefix + "." + _ClientState.randomToken()
        self.replyPrefix = Array((inboxPrefix + ".").utf8)
    }

    /// What the client has done and what went wrong so far.
    public var statistics: NATSClientStatistics { counters.snapshot }

    /// What the server said about itself when the client last connected.
    public var serverInfo: NATSServerInfo? { state.withLockedValue { $0.serverInfo } }

    /// Whether the client has a connection now.
    public var isConnected: Bool { state.withLockedValue { $0.channel != nil } }

    // MARK: Publishing

    /// Publishes `payload` on `subject`, with headers when given.
    ///
    /// Returns once the message is queued for writing; it is written at once when nothing was
    /// written in the last 100 µs, else within 100 µs. While reconnecting, messages are held until the new connection is up.
    /// - Throws: ``NATSError/outboundBufferFull(limit:)``, ``NATSError/closed``,
    ///   ``NATSError/invalidArgument(_:)``; ``NATSError/payloadTooLarge(size:limit:)`` for a
    ///   message (headers and body) larger than the `max_payload` the server last announced,
    ///   which is not written (the server would close the connection).
    public func publish(
        _ payload: ByteBuffer, to subject: String, replyTo: String? = nil, headers: NATSHeaders? = nil
    ) throws {
        try Self.check(subject: subject, replyTo: replyTo, headers: headers)
        try enqueue(size: Self.messageSize(payload, headers)) { out in
            NATSCommandEncoder.publish(
                subject: subject, replyTo: replyTo, headers: headers, payload: payload, into: &out)
        }
        counters.messagesOut.add(1, ordering: .relaxed)
    }

    /// Throws unless `subject`, `replyTo` and `headers` can be written without changing the frame.
    static func check(subject: String, replyTo: String?, headers: NATSHeaders?) throws {
        guard NATSCommandEncoder.isValidSubject(subject, wildcards: false) else {
            throw NATSError.invalidArgument("subject \(subject.debugDescription)")
        }
        if let replyTo, !NATSCommandEncoder.isValidSubject(replyTo, wildcards: false) {
            throw NATSError.invalidArgument("reply subject \(replyTo.debugDescription)")
        }
        if let headers, let problem = NATSCommandEncoder.headerProblem(headers) {
            throw NATSError.invalidArgument(problem)
        }
    }

    /// The size the server checks against its `max_payload`: the header block, when there is
    /// one, and the body.
    static func messageSize(_ payload: ByteBuffer, _ headers: NATSHeaders?) -> Int {
        guard let headers, !headers.isEmpty else { return payload.readableBytes }
        return NATSCommandEncoder.headerBlockLength(headers) + payload.readableBytes
    }

    /// Publishes `bytes` on `subject`.
    public func publish(_ bytes: some Collection<UInt8>, to subject: String, headers: NATSHeaders? = nil) throws {
        try publish(ByteBuffer(bytes: bytes), to: subject, headers: headers)
    }

    /// Waits until the server has processed everything published before the call (a `PING`
    /// answered by `PONG`).
    ///
    /// - Throws: `CancellationError` when the task is cancelled first (the server's `PONG`, when it
    ///   comes, is then ignored); ``NATSError/closed`` or ``NATSError/connectionLost`` when the
    ///   connection ends first.
    public func flush() async throws {
        let number = state.withLockedValue { state in
            state.lastFlush &+= 1
            return state.lastFlush
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Under the client's lock, like the cancellation below: a flush cancelled before it
                // registered sees it here (the task is marked before its handler runs).
                var cancelled = false
                do {
                    try enqueue(registering: { state in
                        cancelled = Task.isCancelled
                        state.pongWaiters.append(
                            cancelled ? nil : _ClientState.FlushWaiter(number: number, continuation: continuation))
                    }) { NATSCommandEncoder.ping(into: &$0) }
                } catch {
                    return continuation.resume(throwing: error)
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            state.withLockedValue { $0.cancelFlush(number) }?.resume(throwing: CancellationError())
        }
    }

    // MARK: Requests

    /// Publishes a request and calls `callback` with the reply, an error, or
    /// ``NATSError/timeout`` once `timeout` has passed. The callback runs on an event loop: keep
    /// it short.
    public func request(
        _ payload: ByteBuffer, to subject: String, headers: NATSHeaders? = nil, timeout: Duration? = nil,
        callback: @escaping @Sendable (Result<NATSMessage, NATSError>) -> Void
    ) throws {
        let timeout = timeout ?? configuration.requestTimeout
        let deadline = NIODeadline.now() + .nanoseconds(timeout.saturatingNanoseconds)
        try Self.check(subject: subject, replyTo: nil, headers: headers)
        let pending = _ClientState.PendingRequest(deadline: deadline, subject: subject, receiver: .callback(callback))
        var token: UInt64 = 0
        try enqueue(
            size: Self.messageSize(payload, headers),
            registering: { state in
                token = state.newToken()
                state.requests[token] = pending
            },
            { out in
                NATSCommandEncoder.publish(
                    subject: subject, replyTo: "\(self.inboxPrefix).\(token)", headers: headers, payload: payload,
                    into: &out)
            })
        counters.messagesOut.add(1, ordering: .relaxed)
    }

    /// Publishes a request whose frame `write` appends, given the token that ends its reply
    /// subject (`<replyPrefix><token>`), and hands the reply (or the timeout, lost connection or
    /// close) to `sink` under `key`: no closure per request. `size` is the message's header
    /// block and body, checked against the server's `max_payload`.
    /// - Throws: ``NATSError/outboundBufferFull(limit:)``, ``NATSError/closed``,
    ///   ``NATSError/connectionLost``, ``NATSError/payloadTooLarge(size:limit:)``.
    func request(
        sink: any _NATSReplySink, key: UInt64, subject: String, size: Int, deadline: NIODeadline,
        _ write: (inout ByteBuffer, UInt64) -> Void
    ) throws {
        // Not `enqueue(registering:_:)`: a token shared by its two closures made every access to
        // it a dynamic exclusivity check.
        let channel: (any Channel)? = try state.withLockedValue { state in
            try admit(&state, size: size)
            let token = state.newToken()
            state.requests[token] = _ClientState.PendingRequest(
                deadline: deadline, subject: subject, receiver: .sink(sink, key))
            write(&state.pending, token)
            return channelToFlush(&state)
        }
        if let channel { channel.eventLoop.execute { self.writePending(to: channel) } }
        counters.messagesOut.add(1, ordering: .relaxed)
    }

    /// Publishes a request and returns its reply.
    /// - Throws: ``NATSError/timeout``, ``NATSError/noResponders(subject:)``, and what
    ///   ``publish(_:to:replyTo:headers:)`` throws.
    public func request(
        _ payload: ByteBuffer, to subject: String, headers: NATSHeaders? = nil, timeout: Duration? = nil
    ) async throws -> NATSMessage {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try request(payload, to: subject, headers: headers, timeout: timeout) { result in
                    continuation.resume(with: result)
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    // MARK: Subscriptions

    /// Subscribes to `subject` (wildcards allowed), in queue group `queue` if given; `handler`
    /// runs on an event loop for each message: keep it short, or hand the message on.
    @discardableResult
    public func subscribe(
        to subject: String, queue: String? = nil, handler: @escaping @Sendable (NATSMessage) -> Void
    ) throws -> NATSSubscription {
        try subscribe(to: subject, queue: queue, refused: nil, handler: handler)
    }

    /// Receives the errors that belong to no call: a plain publish or a subscription the
    /// server refused (``NATSError/permissionViolation(operation:subject:)``). They are also
    /// logged and counted in ``statistics``.
    public func setErrorHandler(_ handler: (@Sendable (NATSError) -> Void)?) {
        state.withLockedValue { $0.errorHandler = handler }
    }

    /// ``subscribe(to:queue:handler:)``, with `refused` told when the server refuses it.
    func subscribe(
        to subject: String, queue: String?, refused: (@Sendable (NATSError) -> Void)?,
        handler: @escaping @Sendable (NATSMessage) -> Void
    ) throws -> NATSSubscription {
        guard NATSCommandEncoder.isValidSubject(subject, wildcards: true),
            queue.map(NATSCommandEncoder.isValidToken) ?? true
        else {
            throw NATSError.invalidArgument(
                "subject \(subject.debugDescription) or queue \((queue ?? "").debugDescription)")
        }
        var sid: UInt64 = 0
        try enqueue(
            registering: { state in
                sid = state.nextSID
                state.nextSID += 1
                state.subscriptions[sid] = .init(subject: subject, queue: queue, handler: handler, refused: refused)
            },
            { out in
                NATSCommandEncoder.subscribe(subject: subject, queue: queue, sid: sid, into: &out)
            })
        return NATSSubscription(id: sid, subject: subject, client: self)
    }

    /// Subscribes to `subject` and returns its messages as a stream, which unsubscribes when it
    /// ends; it also ends when the server refuses the subscription (a permission violation,
    /// reported to the error handler).
    ///
    /// The stream holds at most `limit` messages that its reader has not taken yet. A message
    /// that arrives when it is full is dropped: counted in
    /// ``NATSClientStatistics/messagesDropped`` and logged (the first time per stream, then
    /// every 1,000th), never held.
    public func messages(on subject: String, queue: String? = nil, limit: Int = 65_536) throws -> AsyncStream<
        NATSMessage
    > {
        let (stream, continuation) = AsyncStream.makeStream(
            of: NATSMessage.self, bufferingPolicy: .bufferingOldest(max(1, limit)))
        let counters = self.counters
        let logger = self.logger
        let dropped = NIOLockedValueBox(0)
        let take: @Sendable (NATSMessage) -> Void = { message in
            guard case .dropped = continuation.yield(message) else { return }
            counters.messagesDropped.add(1, ordering: .relaxed)
            let count = dropped.withLockedValue {
                $0 += 1
                return $0
            }
            if count % 1_000 == 1 {
                logger.warning("messages(on: \(subject)) is full (\(limit) unread): \(count) dropped so far")
            }
        }
        let subscription = try subscribe(
            to: subject, queue: queue, refused: { _ in continuation.finish() }, handler: take)
        continuation.onTermination = { _ in subscription.unsubscribe() }
        return stream
    }

    func unsubscribe(_ sid: UInt64) {
        _ = try? enqueue(
            registering: { $0.subscriptions[sid] = nil },
            { out in NATSCommandEncoder.unsubscribe(sid: sid, into: &out) })
    }

    // MARK: Writing

    /// Appends an operation to the outbound bytes, after `registering` ran on the state under
    /// the same lock, and makes sure a write is scheduled. `size`, for a message, is its header
    /// block and body, checked against the server's `max_payload`.
    func enqueue(
        size: Int = 0, registering: (inout _ClientState) -> Void = { _ in }, _ write: (inout ByteBuffer) -> Void
    ) throws {
        let channel: (any Channel)? = try state.withLockedValue { state in
            try admit(&state, size: size)
            registering(&state)
            write(&state.pending)
            return channelToFlush(&state)
        }
        if let channel { channel.eventLoop.execute { self.writePending(to: channel) } }
    }

    /// Throws unless an operation can be queued now: connected or reconnecting, room in the
    /// outbound bytes, and a message of `size` bytes within the `max_payload` the server last
    /// announced (unchecked before the first `INFO`).
    private func admit(_ state: inout _ClientState, size: Int) throws {
        switch state.phase {
        case .closed: throw NATSError.closed
        case .idle: throw NATSError.connectionLost
        case .connected, .reconnecting: break
        }
        if let limit = state.serverInfo?.maxPayload, limit > 0, size > limit {
            throw NATSError.payloadTooLarge(size: size, limit: limit)
        }
        guard state.pending.readableBytes < configuration.maximumOutboundBytes else {
            counters.outboundBufferFull.add(1, ordering: .relaxed)
            throw NATSError.outboundBufferFull(limit: configuration.maximumOutboundBytes)
        }
    }

    /// The channel to schedule a write on, when none is scheduled yet.
    private func channelToFlush(_ state: inout _ClientState) -> (any Channel)? {
        guard let channel = state.channel, !state.flushScheduled else { return nil }
        state.flushScheduled = true
        return channel
    }

    /// While bytes keep coming, how long the event loop gathers them before it writes again.
    static let writeInterval = TimeAmount.microseconds(100)

    /// Hands the gathered bytes to `channel`, unless the socket's own buffer is full: then they
    /// wait for the channel to become writable.
    ///
    /// After a write the event loop comes back by itself after ``writeInterval``, and publishers
    /// meanwhile only append (``_ClientState/flushScheduled`` stays set): waking the event loop
    /// from the publishing thread (an `eventfd` write and a thread wake-up) for every few
    /// messages cost more than writing them. The first bytes after a quiet interval still wake
    /// it at once.
    func writePending(to channel: any Channel) {
        let bytes: ByteBuffer? = state.withLockedValue { state in
            guard let current = state.channel, current === channel, channel.isWritable,
                state.pending.readableBytes > 0
            else {
                state.flushScheduled = false
                return nil
            }
            var taken = ByteBuffer()
            swap(&taken, &state.pending)
            return taken
        }
        guard let bytes else { return }
        channel.writeAndFlush(bytes, promise: nil)
        channel.eventLoop.scheduleTask(in: Self.writeInterval) { self.writePending(to: channel) }
    }
}

/// A subscription of a ``NATSClient``.
public final class NATSSubscription: Sendable {
    /// The id the client gave it (the protocol's sid).
    public let id: UInt64
    /// The subject it listens to.
    public let subject: String
    private let client: NATSClient

    init(id: UInt64, subject: String, client: NATSClient) {
        self.id = id
        self.subject = subject
        self.client = client
    }

    /// Stops the subscription (`UNSUB`); messages still on their way are not delivered, but for
    /// those the client had already read together with the message being handled.
    public func unsubscribe() { client.unsubscribe(id) }
}
