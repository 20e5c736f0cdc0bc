import NIOConcurrencyHelpers
import NIOCore

/// Fetches messages from a pull consumer (`$JS.API.CONSUMER.MSG.NEXT`) into a queue that the
/// caller empties with ``nextMessages()``.
///
/// One fetch is outstanding at a time; it ends when its batch has arrived, when the server
/// ends it (status 404/408/409), or when its time is up here (the connection may be gone).
public final class JetStreamPullSubscription: Sendable {
    private struct State: Sendable {
        var expected = 0
        var fetchWaiter: CheckedContinuation<Void, Never>?
        var queue: [JetStreamMessage] = []
        var queueWaiter: CheckedContinuation<[JetStreamMessage], Never>?
        var isFinished = false
        var consumerGone = false
    }

    /// The stream and consumer it fetches from.
    public let stream: String, consumer: String
    private let jetStream: JetStream
    private let inbox: String
    private let state = NIOLockedValueBox(State())
    private let subscription = NIOLockedValueBox<NATSSubscription?>(nil)

    /// Subscribes a private inbox for `consumer`'s deliveries.
    public init(jetStream: JetStream, stream: String, consumer: String) throws {
        self.jetStream = jetStream
        self.stream = stream
        self.consumer = consumer
        self.inbox = jetStream.client.inboxPrefix + ".pull." + String(UInt64.random(in: 0...UInt64.max))
        let subscription = try jetStream.client.subscribe(to: inbox) { [weak self] in self?.received($0) }
        self.subscription.withLockedValue { $0 = subscription }
    }

    /// Whether the server said the consumer no longer exists: it must be created again.
    public var consumerGone: Bool { state.withLockedValue { $0.consumerGone } }

    /// Asks for up to `batch` messages, waiting up to `expires` for them, and returns when the
    /// fetch has ended. Messages go to the queue as they arrive.
    public func fetch(batch: Int, expires: Duration) async throws {
        let nanoseconds = expires.components.seconds * 1_000_000_000 + expires.components.attoseconds / 1_000_000_000
        let body = "{\"batch\":\(batch),\"expires\":\(nanoseconds)}"
        state.withLockedValue { state in
            state.expected = batch
            state.consumerGone = false
        }
        try jetStream.client.publish(
            ByteBuffer(string: body), to: "\(jetStream.apiPrefix).CONSUMER.MSG.NEXT.\(stream).\(consumer)",
            replyTo: inbox)
        let timer = jetStream.client.group.next().scheduleTask(
            in: .nanoseconds(nanoseconds) + .milliseconds(500)
        ) { [weak self] in self?.endFetch() }
        await withCheckedContinuation { continuation in
            let isOver = state.withLockedValue { state -> Bool in
                if state.expected <= 0 || state.isFinished { return true }
                state.fetchWaiter = continuation
                return false
            }
            if isOver { continuation.resume() }
        }
        timer.cancel()
    }

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
            guard status != 100 else { return }
            let gone =
                status == 503 || (status == 409 && (message.headers.statusDescription ?? "").contains("Deleted"))
            if gone { state.withLockedValue { $0.consumerGone = true } }
            endFetch()
            return
        }
        guard let delivery = JetStreamMessage(message, client: jetStream.client) else { return }
        let (queueWaiter, fetchWaiter) = state.withLockedValue {
            state -> (CheckedContinuation<[JetStreamMessage], Never>?, CheckedContinuation<Void, Never>?) in
            state.expected -= 1
            var fetchWaiter: CheckedContinuation<Void, Never>?
            if state.expected <= 0 {
                fetchWaiter = state.fetchWaiter
                state.fetchWaiter = nil
            }
            guard !state.isFinished else { return (nil, fetchWaiter) }
            if let waiter = state.queueWaiter {
                state.queueWaiter = nil
                return (waiter, fetchWaiter)
            }
            state.queue.append(delivery)
            return (nil, fetchWaiter)
        }
        queueWaiter?.resume(returning: [delivery])
        fetchWaiter?.resume()
    }
}
