// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore

extension NATSClient {
    /// What one frame asks for: worked out under the lock, done after it.
    private enum Step {
        case deliver(@Sendable (NATSMessage) -> Void, NATSMessage)
        case answer(_ClientState.PendingRequest, NATSMessage)
        case resume(CheckedContinuation<Void, any Error>)
        case serverError(String)
        case refused(_ClientState.PendingRequest, NATSError)
        case moveAway(any Channel)
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
                        // A reply nobody waits for any more (timed out), or to a token never
                        // handed out, is dropped.
                        if let token = replyToken(message.subject),
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
                        steps.append(.resume(waiter.continuation))
                    }
                case .error(let detail):
                    steps.append(.serverError(detail))
                    // A publish the user may not make fails the requests that made it.
                    if let violation = Self.permissionViolation(detail), violation.operation == "publish to" {
                        let refused = state.requests.filter { $0.value.subject == violation.subject }.map(\.key)
                        for token in refused {
                            if let request = state.requests.removeValue(forKey: token) {
                                steps.append(
                                    .refused(
                                        request,
                                        .permissionViolation(operation: violation.operation, subject: violation.subject)
                                    ))
                            }
                        }
                    }
                case .info(let info):
                    state.serverInfo = info
                    if let server = state.currentServer { state.discover(info.connectURLs, from: server) }
                    // Lame-duck mode: the server is about to go; move before it does.
                    if info.lameDuckMode, let channel = state.channel { steps.append(.moveAway(channel)) }
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
                if let violation = Self.permissionViolation(detail) {
                    counters.permissionViolations.add(1, ordering: .relaxed)
                    reportViolation(.permissionViolation(operation: violation.operation, subject: violation.subject))
                }
                logger.error("NATS server error: \(detail)")
            case .refused(let request, let error):
                request.complete(.failure(error))
            case .moveAway(let channel):
                counters.lameDuckMoves.add(1, ordering: .relaxed)
                logger.warning("NATS server in lame-duck mode; moving to another server")
                channel.close(promise: nil)
            }
        }
    }

    /// The operation (`publish to`, `subscribe to`) and subject of a `Permissions Violation for
    /// Publish to "x"` or `… for Subscription to "x"` error; `nil` for other errors.
    static func permissionViolation(_ detail: String) -> (operation: String, subject: String)? {
        let lowered = detail.lowercased()
        guard lowered.hasPrefix("permissions violation for ") else { return nil }
        let operation = lowered.contains("for publish") ? "publish to" : "subscribe to"
        // The first quoted word: a queue group may follow in quotes of its own.
        guard let open = detail.firstIndex(of: "\""),
            let close = detail[detail.index(after: open)...].firstIndex(of: "\"")
        else { return nil }
        return (operation, String(detail[detail.index(after: open)..<close]))
    }

    /// Tells the subscriptions to the refused subject, and the error handler.
    private func reportViolation(_ error: NATSError) {
        guard case .permissionViolation(let operation, let subject) = error else { return }
        let (refused, handler) = state.withLockedValue { state in
            let refused =
                operation == "subscribe to"
                ? state.subscriptions.values.filter { $0.subject == subject }.compactMap(\.refused) : []
            return (refused, state.errorHandler)
        }
        // The handler first: whoever sees a stream end can then find why.
        handler?(error)
        for subscription in refused { subscription(error) }
    }

    /// A reply that reached the inbox subscription's handler (before the client knew the
    /// inbox's sid).
    func receivedReply(_ message: NATSMessage) {
        guard let token = replyToken(message.subject),
            let request = state.withLockedValue({ $0.requests.removeValue(forKey: token) })
        else { return }
        Self.answer(request, with: message)
    }

    /// The request token of a reply subject: exactly `<inboxPrefix>.<token>`, the token in
    /// decimal; `nil` for any other subject.
    func replyToken(_ subject: String) -> UInt64? {
        let utf8 = subject.utf8
        guard utf8.count > replyPrefix.count, utf8.starts(with: replyPrefix) else { return nil }
        let digits = utf8.dropFirst(replyPrefix.count)
        guard digits.first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        return NATSProtocolParser.integer(digits)
    }

    private static func answer(_ request: _ClientState.PendingRequest, with message: NATSMessage) {
        if message.headers.status == 503 {
            request.complete(.failure(.noResponders(subject: message.subject)))
        } else {
            request.complete(.success(message))
        }
    }
}
