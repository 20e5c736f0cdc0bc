import Foundation
import NIOCore
import NIOPosix
import NIOSSL

extension NATSClient {
    /// Connects to the first server that answers, then subscribes the request inbox.
    /// - Throws: ``NATSError/connectFailed(_:)`` with the last server's error.
    public func connect() async throws {
        let channel = try await openAnyConnection()
        let isFirst = state.withLockedValue { state -> Bool in
            guard case .idle = state.phase else { return false }
            state.phase = .reconnecting
            return true
        }
        guard isFirst else {
            channel.close(promise: nil)
            return
        }
        install(channel)
        let sweeper = group.next().scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) {
            [weak self] _ in self?.sweepExpiredRequests()
        }
        state.withLockedValue { $0.sweeper = sweeper }
        let inbox = try subscribe(to: "\(inboxPrefix).*") { [weak self] message in self?.receivedReply(message) }
        state.withLockedValue { $0.inboxSID = inbox.id }
    }

    /// Flushes what was published (bounded by a second), then closes the connection. Pending
    /// requests fail with ``NATSError/closed``.
    public func close() async {
        if isConnected {
            try? await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.flush() }
                group.addTask { try await Task.sleep(for: .seconds(1)) }
                try await group.next()
                group.cancelAll()
            }
        }
        let (channel, requests, waiters, sweeper, reconnect, pingTimer) = state.withLockedValue { state in
            let channel = state.channel
            state.phase = .closed
            let (requests, waiters) = state.takeWaiters()
            defer {
                state.sweeper = nil
                state.reconnectTask = nil
                state.pingTimer = nil
            }
            return (channel, requests, waiters, state.sweeper, state.reconnectTask, state.pingTimer)
        }
        sweeper?.cancel()
        pingTimer?.cancel()
        reconnect?.cancel()
        for request in requests { request.complete(.failure(.closed)) }
        for waiter in waiters { waiter.resume(throwing: NATSError.closed) }
        try? await channel?.close()
    }

    // MARK: Connections

    private func openAnyConnection() async throws -> any Channel {
        var lastError: any Error = NATSError.connectFailed("no server configured")
        for server in configuration.servers {
            do {
                return try await openConnection(to: server)
            } catch {
                lastError = error
            }
        }
        throw NATSError.connectFailed("\(lastError)")
    }

    private func openConnection(to server: URL) async throws -> any Channel {
        let host = server.host ?? "127.0.0.1"
        let port = server.port ?? 4222
        let loop = group.next()
        let handshake = loop.makePromise(of: NATSServerInfo.self)
        let hooks = makeHooks(host: host, wantsTLS: server.scheme == "tls" || configuration.tls != nil)
        let timeout = configuration.connectTimeout
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.nanoseconds(Int64(timeout.components.seconds * 1_000_000_000)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        _NATSChannelHandler(handshake: handshake, hooks: hooks))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            handshake.fail(error)
            throw error
        }
        let timer = loop.scheduleTask(in: .nanoseconds(Int64(timeout.components.seconds * 1_000_000_000))) {
            handshake.fail(NATSError.timeout)
        }
        do {
            let info = try await handshake.futureResult.get()
            timer.cancel()
            state.withLockedValue { $0.serverInfo = info }
            return channel
        } catch {
            timer.cancel()
            try? await channel.close()
            throw error
        }
    }

    private func makeHooks(host: String, wantsTLS: Bool) -> _NATSChannelHandler.Hooks {
        let configuration = self.configuration
        return _NATSChannelHandler.Hooks(
            connectJSON: { info in Self.connectJSON(configuration, tls: wantsTLS || info.tlsRequired) },
            tlsHandler: { info in
                guard wantsTLS || info.tlsRequired else { return nil }
                let tls = configuration.tls ?? TLSConfiguration.makeClientConfiguration()
                let context = try NIOSSLContext(configuration: tls)
                let isAddress = host.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
                return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
            },
            frames: { [weak self] frames in self?.received(frames) },
            inactive: { [weak self] channel in self?.connectionLost(channel) },
            writable: { [weak self] channel in self?.writePending(to: channel) },
            protocolError: { [weak self] error in
                self?.counters.protocolErrors.add(1, ordering: .relaxed)
                self?.logger.error("\(error)")
            })
    }

    static func connectJSON(_ configuration: NATSClientConfiguration, tls: Bool) -> String {
        var fields: [String: Any] = [
            "verbose": false, "pedantic": false, "tls_required": tls, "name": configuration.name,
            "lang": "swift", "version": "1.0.0", "protocol": 1, "headers": true, "no_responders": true,
        ]
        switch configuration.authentication {
        case .userPassword(let user, let password):
            fields["user"] = user
            fields["pass"] = password
        case .token(let token):
            fields["auth_token"] = token
        case nil:
            break
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Makes `channel` the connection: subscriptions first, then whatever waited to be written;
    /// starts its keep-alive.
    private func install(_ channel: any Channel) {
        let pingTimer = startKeepAlive(on: channel)
        let bytes: ByteBuffer? = state.withLockedValue { state in
            guard !state.isClosed else { return nil }
            state.phase = .connected(channel)
            state.pingsOutstanding = 0
            state.pingTimer = pingTimer
            // Counted before anything can be written on it, so whoever sees traffic sees the count.
            counters.connects.add(1, ordering: .relaxed)
            var out = channel.allocator.buffer(capacity: 1024 + state.pending.readableBytes)
            state.resubscriptions(into: &out)
            out.writeBuffer(&state.pending)
            state.pending = ByteBuffer()
            state.flushScheduled = false
            return out
        }
        guard let bytes else {
            pingTimer?.cancel()
            channel.close(promise: nil)
            return
        }
        channel.writeAndFlush(bytes, promise: nil)
    }

    private func connectionLost(_ channel: any Channel) {
        typealias Lost = ([_ClientState.PendingRequest], [CheckedContinuation<Void, any Error>], RepeatedTask?)
        let lost: Lost? = state.withLockedValue { state in
            guard let current = state.channel, current === channel else { return nil }
            state.phase = .reconnecting
            defer { state.pingTimer = nil }
            let (requests, waiters) = state.takeWaiters()
            return (requests, waiters, state.pingTimer)
        }
        guard let (requests, waiters, pingTimer) = lost else { return }
        pingTimer?.cancel()
        counters.disconnects.add(1, ordering: .relaxed)
        counters.requestsLost.add(requests.count, ordering: .relaxed)
        logger.warning("NATS connection lost; reconnecting")
        for request in requests { request.complete(.failure(.connectionLost)) }
        for waiter in waiters { waiter.resume(throwing: NATSError.connectionLost) }
        let task = Task<Void, Never> { [weak self] in await self?.reconnect() }
        state.withLockedValue { $0.reconnectTask = task }
    }

    private func reconnect() async {
        let policy = configuration.reconnect
        var delay = policy.initialDelay
        var attempts = 0
        while !Task.isCancelled, !state.withLockedValue({ $0.isClosed }) {
            if let channel = try? await openAnyConnection() {
                install(channel)
                logger.info("NATS connection re-established")
                return
            }
            attempts += 1
            if let maximum = policy.maximumAttempts, attempts >= maximum {
                logger.error("NATS reconnection failed \(attempts) times; closing")
                await close()
                return
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, policy.maximumDelay)
        }
    }

    private func sweepExpiredRequests() {
        let now = NIODeadline.now()
        let expired = state.withLockedValue { state -> [_ClientState.PendingRequest] in
            let tokens = state.requests.compactMap { $0.value.deadline < now ? $0.key : nil }
            return tokens.compactMap { state.requests.removeValue(forKey: $0) }
        }
        counters.requestTimeouts.add(expired.count, ordering: .relaxed)
        for request in expired { request.complete(.failure(.timeout)) }
    }
}
