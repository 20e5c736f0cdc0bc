// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore

extension NATSClient {
    /// `channel` closed (or the keep-alive found it stale): when it is the current connection,
    /// pending requests and flushes fail with ``NATSError/connectionLost`` and the client
    /// reconnects. Called more than once for one channel (its inactive event, its close future,
    /// the keep-alive), it acts once.
    func connectionLost(_ channel: any Channel) {
        typealias Lost = (
            [_ClientState.PendingRequest], [CheckedContinuation<Void, any Error>], RepeatedTask?, Duration?
        )
        let policy = configuration.reconnect
        let lost: Lost? = state.withLockedValue { state in
            guard let current = state.channel, current === channel else { return nil }
            state.phase = .reconnecting
            defer { state.pingTimer = nil }
            let (requests, waiters) = state.takeWaiters()
            return (requests, waiters, state.pingTimer, state.backoff.lost(at: .now, policy: policy))
        }
        guard let (requests, waiters, pingTimer, wait) = lost else { return }
        pingTimer?.cancel()
        counters.disconnects.add(1, ordering: .relaxed)
        counters.requestsLost.add(requests.count, ordering: .relaxed)
        if let wait {
            logger.warning("NATS connection lost soon after it was established; reconnecting in up to \(wait)")
        } else {
            logger.warning("NATS connection lost; reconnecting")
        }
        for request in requests { request.complete(.failure(.connectionLost)) }
        for waiter in waiters { waiter.resume(throwing: NATSError.connectionLost) }
        let task = Task<Void, Never> { [weak self] in await self?.reconnect(after: wait) }
        state.withLockedValue { $0.reconnectTask = task }
    }

    /// Opens a connection again, first after `wait` (jittered) when there is one, then with the
    /// back-off after each failed attempt; closes the client after
    /// ``NATSClientConfiguration/Reconnect/maximumAttempts`` failures in a row, or when the
    /// servers refuse the credentials again and again.
    private func reconnect(after wait: Duration?) async {
        let policy = configuration.reconnect
        if let wait { try? await Task.sleep(for: policy.jittered(wait).sleepable) }
        var attempts = 0
        var refusals: [String: (detail: String, count: Int)] = [:]
        while !Task.isCancelled, !state.withLockedValue({ $0.isClosed }) {
            do {
                let channel = try await openAnyConnection(refusals: &refusals)
                install(channel)
                logger.info("NATS connection re-established")
                return
            } catch {
                // The same refusal from a server, again and again: the credentials will not do.
                let limit = max(1, configuration.maximumAuthorizationFailures)
                if let (_, refusal) = refusals.first(where: { $0.value.count >= limit }) {
                    let reason = NATSError.authorizationFailed(
                        "\(refusal.detail) (refused \(refusal.count) times in a row while reconnecting)")
                    logger.error("\(reason); closing")
                    await close(because: reason)
                    return
                }
            }
            attempts += 1
            if let maximum = policy.maximumAttempts, attempts >= maximum {
                logger.error("NATS reconnection failed \(attempts) times; closing")
                await close(because: .connectFailed("reconnection failed \(attempts) times"))
                return
            }
            let delay = state.withLockedValue { $0.backoff.failed(policy: policy) }
            // Jittered, so that clients that lost one server do not all come back at one instant.
            try? await Task.sleep(for: policy.jittered(delay).sleepable)
        }
    }
}
