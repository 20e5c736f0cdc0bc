// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOConcurrencyHelpers
import NIOCore

/// Fetches messages from a pull consumer (`$JS.API.CONSUMER.MSG.NEXT`) into a queue that the
/// caller empties with ``nextMessages()``.
///
/// The queue holds at most ``capacity`` messages: a fetch asks for no more than there is room
/// for, and a delivery beyond it is dropped unacknowledged, counted in ``droppedDeliveries``
/// and logged; the server delivers it again after its ack wait. So is a delivery no fetch asked
/// for, a reader waiting or not: beyond the batch of the fetch outstanding, or with none
/// outstanding. (What a fetch ended here, before its batch came, asked for stays allowed until
/// the server ends its request: its `expires`, and a second.) A delivery without a readable ack subject cannot be settled: it is dropped and counted
/// the same way.
///
/// One fetch is outstanding at a time; it ends when its batch has arrived, when the server
/// ends it (status 404/408/409), or when its time is up here (the connection may be gone).
public final class JetStreamPullSubscription: Sendable {
    private struct State: Sendable {
        /// Deliveries the outstanding fetch still expects.
        var expected = 0
        /// Deliveries that fetches ended here (their time up, heartbeats missed, a status that
        /// may have ended another request) still allowed, until ``leftoverDeadline``: the server
        /// may still send them for a request it has not ended yet.
        var leftover = 0
        var leftoverDeadline = NIODeadline.uptimeNanoseconds(0)
        /// When the server ends the outstanding fetch's request at the latest (its `expires`),
        /// with a second's grace.
        var requestDeadline = NIODeadline.uptimeNanoseconds(0)
        var fetchWaiter: CheckedContinuation<Void, Never>?
        var queue: [JetStreamMessage] = []
        var queueWaiter: CheckedContinuation<[JetStreamMessage], Never>?
        /// Deliveries queued or handed to a waiting reader, in all.
        var accepted = 0
        var isFinished = false
        var consumerGone = false
        var dropped = 0
        var refusal: NATSError?
        /// When the server last sent anything for a fetch (a message or a heartbeat).
        var lastActivity = NIODeadline.now()
        var missedHeartbeats = 0
        /// Fetches refused in a row (status 409).
        var conflicts = 0
    }

    /// The stream and consumer it fetches from.
    public let stream: String, consumer: String
    private let jetStream: JetStream
    /// Where its deliveries arrive.
    let inbox: String
    private let state = NIOLockedValueBox(State())
    private let subscription = NIOLockedValueBox<NATSSubscription?>(nil)

    /// The most messages the queue holds.
    public let capacity: Int

    /// Subscribes a private inbox for `consumer`'s deliveries, queueing at most `capacity`.
    public init(jetStream: JetStream, stream: String, consumer: String, capacity: Int = 2_048) throws {
        self.jetStream = jetStream
        self.stream = stream
        self.consumer = consumer
        self.capacity = max(1, capacity)
        self.inbox = jetStream.client.inboxPrefix + ".pull." + String(UInt64.random(in: 0...UInt64.max))
        let subscription = try jetStream.client.subscribe(
            to: inbox, queue: nil, refused: { [weak self] in self?.refuse($0) },
            handler: { [weak self] in self?.received($0) })
        self.subscription.withLockedValue { $0 = subscription }
    }

    /// Deliveries that arrived and were not taken yet.
    public var queued: Int { state.withLockedValue { $0.queue.count } }

    /// Deliveries accepted since it subscribed, in all: queued (taken since, or not yet) or
    /// handed to a waiting reader; not those dropped (see ``droppedDeliveries``) or those that
    /// arrived after ``finish()``.
    public var accepted: Int { state.withLockedValue { $0.accepted } }

    /// Deliveries dropped: unasked (beyond the fetch's batch or with no fetch outstanding), beyond
    /// ``capacity``, or without a readable ack subject.
    public var droppedDeliveries: Int { state.withLockedValue { $0.dropped } }

    /// Whether the server said the consumer no longer exists: it must be created again.
    public var consumerGone: Bool { state.withLockedValue { $0.consumerGone } }

    /// Asks for up to `batch` messages (fewer when the queue has less room), waiting up to
    /// `expires` for them, and returns when the fetch has ended. Messages go to the queue as they
    /// arrive.
    /// - Throws: ``NATSError/permissionViolation(operation:subject:)`` once the server refused
    ///   the inbox's subscription, and what publishing the request throws.
    ///
    /// The request asks the server for idle heartbeats every quarter of `expires`, but at most
    /// every ``maximumHeartbeatInterval`` (5 s): two missed in a row end the fetch as lost (the
    /// server or the route to it is gone), long before `expires`. A fetch under 4 ms asks for
    /// none (its quarter would be under 1 ms); its own timer ends it half a second after
    /// `expires`. A fetch of 20 s or more thus
    /// ends after 10 to 15 s without a word from the server (10 s measured for one of 10
    /// minutes). After the server refused a fetch (status 409: too many waiting requests, a
    /// batch too large), the next one waits first, 100 ms doubling up to 2 s while it keeps
    /// refusing.
    public func fetch(batch: Int, expires: Duration) async throws {
        let nanoseconds = expires.saturatingNanoseconds
        let conflicts = state.withLockedValue { $0.conflicts }
        if conflicts > 0 {
            try? await Task.sleep(for: min(.milliseconds(100) * (1 << min(conflicts - 1, 5)), .seconds(2)))
        }
        let capacity = self.capacity
        let batch = state.withLockedValue { state in
            let batch = min(batch, capacity - state.queue.count)
            state.expected = batch
            state.requestDeadline = .now() + .nanoseconds(nanoseconds) + .seconds(1)
            state.consumerGone = false
            return batch
        }
        if let refusal = state.withLockedValue({ $0.refusal }) { throw refusal }
        guard batch > 0 else { return }
        let heartbeat = Self.heartbeatNanoseconds(expires: nanoseconds)
        let asksHeartbeats = heartbeat.map { ",\"idle_heartbeat\":\($0)" } ?? ""
        let body = "{\"batch\":\(batch),\"expires\":\(nanoseconds)\(asksHeartbeats)}"
        state.withLockedValue { $0.lastActivity = .now() }
        try jetStream.client.publish(
            ByteBuffer(string: body), to: "\(jetStream.apiPrefix).CONSUMER.MSG.NEXT.\(stream).\(consumer)",
            replyTo: inbox)
        let loop = jetStream.client.group.next()
        // Half a second after the server's own expiry; saturated, like `nanoseconds`.
        let (ending, overflow) = nanoseconds.addingReportingOverflow(500_000_000)
        let timer = loop.scheduleTask(in: .nanoseconds(overflow ? .max : ending)) { [weak self] in
            self?.endFetch()
        }
        let watchdog = heartbeat.map { heartbeat in
            loop.scheduleRepeatedTask(initialDelay: .nanoseconds(heartbeat), delay: .nanoseconds(heartbeat)) {
                [weak self] _ in
                guard let self else { return }
                let missed = self.state.withLockedValue { state -> Bool in
                    guard NIODeadline.now() - state.lastActivity > .nanoseconds(2 * heartbeat) else { return false }
                    state.missedHeartbeats += 1
                    return true
                }
                if missed { self.endFetch() }
            }
        }
        await withCheckedContinuation { continuation in
            let isOver = state.withLockedValue { state -> Bool in
                if state.expected <= 0 || state.isFinished { return true }
                state.fetchWaiter = continuation
                return false
            }
            if isOver { continuation.resume() }
        }
        timer.cancel()
        watchdog?.cancel()
    }

    /// The longest interval between idle heartbeats a fetch asks for, whatever its `expires`: 5 s.
    public static let maximumHeartbeatInterval = Duration.seconds(5)

    /// The heartbeat interval for a fetch that expires after `expires` nanoseconds: a quarter of
    /// it (nats-server refuses an interval above half the expiry), at most
    /// ``maximumHeartbeatInterval``; `nil`, no heartbeats, when that quarter is under 1 ms: such a
    /// fetch ends by its own timer (half a second after its expiry) soon enough.
    static func heartbeatNanoseconds(expires: Int64) -> Int64? {
        let quarter = expires / 4
        guard quarter >= 1_000_000 else { return nil }
        return min(quarter, maximumHeartbeatInterval.saturatingNanoseconds)
    }

    /// Fetches ended because the server's idle heartbeats stopped.
    public var missedHeartbeats: Int { state.withLockedValue { $0.missedHeartbeats } }

    /// Every message that has arrived and not been taken yet; waits while there is none. Empty
    /// once the subscription is finished.
    public func nextMessages() async -> [JetStreamMessage] {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> [JetStreamMessage]? in
                if !state.queue.isEmpty || state.isFinished {
                    defer { state.queue = [] }
                    return state.queue
                }
                state.queueWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Stops: the outstanding fetch ends, ``nextMessages()`` returns what is left and then
    /// nothing, and the inbox is unsubscribed. Messages that arrive later are not taken: the
    /// server redelivers them after its ack wait.
    public func finish() {
        // A waiting reader means an empty queue; otherwise the reader takes what is left.
        let (fetchWaiter, queueWaiter) = state.withLockedValue { state in
            state.isFinished = true
            defer {
                state.fetchWaiter = nil
                state.queueWaiter = nil
            }
            return (state.fetchWaiter, state.queueWaiter)
        }
        subscription.withLockedValue { $0?.unsubscribe() }
        fetchWaiter?.resume()
        queueWaiter?.resume(returning: [])
    }

    private func endFetch() {
        let waiter = state.withLockedValue { state in
            // What the request may still bring stays allowed until its server-side end.
            if state.expected > 0 {
                if NIODeadline.now() >= state.leftoverDeadline { state.leftover = 0 }
                state.leftover += state.expected
                state.leftoverDeadline = max(state.leftoverDeadline, state.requestDeadline)
            }
            state.expected = 0
            defer { state.fetchWaiter = nil }
            return state.fetchWaiter
        }
        waiter?.resume()
    }

    private func received(_ message: NATSMessage) {
        if let status = message.headers.status {
            // 100: heartbeat. 404/408: nothing (more) to deliver in time. 409: the fetch was
            // refused or the consumer deleted. 503: no one serves the consumer's subject.
            guard status != 100 else {
                state.withLockedValue { $0.lastActivity = .now() }
                return
            }
            let gone =
                status == 503 || (status == 409 && (message.headers.statusDescription ?? "").contains("Deleted"))
            state.withLockedValue { state in
                state.lastActivity = .now()
                if gone { state.consumerGone = true }
                if status == 409, !gone { state.conflicts += 1 } else { state.conflicts = 0 }
            }
            endFetch()
            return
        }
        guard let delivery = JetStreamMessage(message, client: jetStream.client) else {
            drop("a delivery without a readable ack subject")
            return
        }
        let capacity = self.capacity
        var isFull = false
        var isUnasked = false
        let (queueWaiter, fetchWaiter) = state.withLockedValue {
            state -> (CheckedContinuation<[JetStreamMessage], Never>?, CheckedContinuation<Void, Never>?) in
            // Beyond what was asked for (no fetch outstanding, or more than its batch, and nothing
            // left of a request ended here that the server may not have ended yet): neither
            // queued nor handed to a waiting reader, whatever room there is.
            if state.expected > 0 {
                state.expected -= 1
            } else if state.leftover > 0, NIODeadline.now() < state.leftoverDeadline {
                state.leftover -= 1
            } else {
                state.leftover = 0
                isUnasked = true
                return (nil, nil)
            }
            state.conflicts = 0
            state.lastActivity = .now()
            var fetchWaiter: CheckedContinuation<Void, Never>?
            if state.expected <= 0 {
                fetchWaiter = state.fetchWaiter
                state.fetchWaiter = nil
            }
            guard !state.isFinished else { return (nil, fetchWaiter) }
            if let waiter = state.queueWaiter {
                state.queueWaiter = nil
                state.accepted += 1
                return (waiter, fetchWaiter)
            }
            guard state.queue.count < capacity else {
                isFull = true
                return (nil, fetchWaiter)
            }
            state.queue.append(delivery)
            state.accepted += 1
            return (nil, fetchWaiter)
        }
        if isUnasked { drop("a delivery no fetch asked for") }
        if isFull { drop("a delivery beyond the queue's capacity of \(capacity)") }
        queueWaiter?.resume(returning: [delivery])
        fetchWaiter?.resume()
    }

    /// The server refused the inbox's subscription: fetches throw that from now on.
    private func refuse(_ error: NATSError) {
        state.withLockedValue { $0.refusal = error }
        endFetch()
    }

    private func drop(_ what: String) {
        let count = state.withLockedValue {
            $0.dropped += 1
            return $0.dropped
        }
        if count % 1_000 == 1 {
            jetStream.client.logger.warning(
                "\(stream)/\(consumer): dropped \(what) (\(count) so far); the server redelivers it after its ack wait")
        }
    }
}
