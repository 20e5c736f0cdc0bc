import NIOCore

extension NATSClient {
    /// What one frame asks for: worked out under the lock, done after it.
    private enum Step {
        case deliver(@Sendable (NATSMessage) -> Void, NATSMessage)
        case answer(_ClientState.PendingRequest, NATSMessage)
        case resume(CheckedContinuation<Void, any Error>)
        case serverError(String)
    }

    /// The frames of one read, in order. The lock is taken once for all of them: per message it
    /// was taken once for the handler and again for a request's reply, and the event loop
    /// contended for it with every thread that publishes.
    func received(_ frames: [NATSServerFrame]) {
        var messages = 0
        var orphans = 0
        let steps = state.withLockedValue { state -> [Step] in
            var steps: [Step] = []
            steps.reserveCapacity(frames.count)
            for frame in frames {
                switch frame {
                case .message(let message):
                    messages += 1
                    if message.subscriptionID == state.inboxSID {
                        // A reply nobody waits for any more (timed out) is dropped.
                        if let token = Self.replyToken(message.subject),
                            let request = state.requests.removeValue(forKey: token)
                        {
                            steps.append(.answer(request, message))
                        }
                    } else if let handler = state.subscriptions[message.subscriptionID]?.handler {
                        steps.append(.deliver(handler, message))
                    } else {
                        orphans += 1
                    }
                case .pong:
                    // Any PONG shows the connection works: it answers every keep-alive PING before it.
                    state.pingsOutstanding = 0
                    if !state.pongWaiters.isEmpty, let waiter = state.pongWaiters.removeFirst() {
                        steps.append(.resume(waiter))
                    }
                case .error(let detail):
                    steps.append(.serverError(detail))
                case .info(let info):
                    state.serverInfo = info
                case .ok, .ping:
                    break
                }
            }
            return steps
        }
        if messages > 0 { counters.messagesIn.add(messages, ordering: .relaxed) }
        if orphans > 0 { counters.messagesWithoutSubscription.add(orphans, ordering: .relaxed) }
        for step in steps {
            switch step {
            case .deliver(let handler, let message):
                handler(message)
            case .answer(let request, let message):
                Self.answer(request, with: message)
            case .resume(let waiter):
                waiter.resume()
            case .serverError(let detail):
                counters.serverErrors.add(1, ordering: .relaxed)
                logger.error("NATS server error: \(detail)")
            }
        }
    }

    /// A reply that reached the inbox subscription's handler (before the client knew the
    /// inbox's sid).
    func receivedReply(_ message: NATSMessage) {
        guard let token = Self.replyToken(message.subject),
            let request = state.withLockedValue({ $0.requests.removeValue(forKey: token) })
        else { return }
        Self.answer(request, with: message)
    }

    /// The request token at the end of an inbox subject, `_INBOX.<id>.<token>`.
    private static func replyToken(_ subject: String) -> UInt64? {
        guard let dot = subject.utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        var value: UInt64 = 0
        let digits = subject.utf8[subject.utf8.index(after: dot)...]
        guard !digits.isEmpty, digits.count <= 19 else { return nil }
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func answer(_ request: _ClientState.PendingRequest, with message: NATSMessage) {
        if message.headers.status == 503 {
            request.complete(.failure(.noResponders(subject: message.subject)))
        } else {
            request.complete(.success(message))
        }
    }
}
