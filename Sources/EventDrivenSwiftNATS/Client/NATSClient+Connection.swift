// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore
import NIOPosix
import NIOSSL

extension NATSClient {
    /// Connects to the first server that answers, then subscribes the request inbox.
    /// - Throws: ``NATSError/authorizationFailed(_:)`` when the servers refused the credentials;
    ///   the last server's ``NATSError/protocolError(_:)``, ``NATSError/tlsFailed(_:)`` or
    ///   ``NATSError/serverError(_:)``; else ``NATSError/connectFailed(_:)`` with why no server
    ///   answered. No error text holds a credential.
    public func connect() async throws {
        state.withLockedValue { state in
            if state.servers.isEmpty {
                state.servers =
                    configuration.randomizeServers ? configuration.servers.shuffled() : configuration.servers
            }
        }
        guard NATSCommandEncoder.isValidSubject(configuration.inboxPrefix, wildcards: false) else {
            throw NATSError.invalidArgument("inbox prefix \(configuration.inboxPrefix.debugDescription)")
        }
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
        await close(because: nil)
    }

    /// Why the client closed by itself (credentials refused again and again, reconnection given
    /// up); `nil` while it is open or when ``close()`` closed it.
    public var closeReason: NATSError? { state.withLockedValue { $0.closeReason } }

    /// Calls `handler` once the client is closed, with ``closeReason``; at once if it is.
    func whenClosed(_ handler: @escaping @Sendable (NATSError?) -> Void) {
        let reason: NATSError?? = state.withLockedValue { state in
            guard state.isClosed else {
                state.closeHandlers.append(handler)
                return .none
            }
            return .some(state.closeReason)
        }
        if case .some(let reason) = reason { handler(reason) }
    }

    func close(because reason: NATSError?) async {
        if isConnected {
            try? await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.flush() }
                group.addTask { try await Task.sleep(for: .seconds(1)) }
                try await group.next()
                group.cancelAll()
            }
        }
        let (channel, requests, waiters, sweeper, reconnect, pingTimer, handlers) = state.withLockedValue { state in
            let channel = state.channel
            let wasClosed = state.isClosed
            state.phase = .closed
            if !wasClosed { state.closeReason = reason }
            let (requests, waiters) = state.takeWaiters()
            defer {
                state.sweeper = nil
                state.reconnectTask = nil
                state.pingTimer = nil
                state.closeHandlers = []
            }
            return (
                channel, requests, waiters, state.sweeper, state.reconnectTask, state.pingTimer, state.closeHandlers
            )
        }
        sweeper?.cancel()
        pingTimer?.cancel()
        if reason == nil { reconnect?.cancel() }
        for request in requests { request.complete(.failure(.closed)) }
        for waiter in waiters { waiter.resume(throwing: NATSError.closed) }
        try? await channel?.close()
        for handler in handlers { handler(reason) }
    }

    // MARK: Connections

    /// Whether `detail`, an `-ERR` text, says that the server refused the credentials.
    static func isAuthorizationError(_ detail: String) -> Bool {
        let lowered = detail.lowercased()
        return lowered.contains("authorization violation") || lowered.contains("authentication expired")
            || lowered.contains("authentication revoked") || lowered.contains("authentication timeout")
    }

    /// The first server that completes the handshake, trying the server pool in order (the one
    /// just lost last); else the credentials' refusal or the last error. `refusals` (by server)
    /// counts each server's identical refusals in a row.
    func openAnyConnection(refusals: inout [String: (detail: String, count: Int)]) async throws -> any Channel {
        var lastError: any Error = NATSError.connectFailed("no server configured")
        var refused: String?
        let servers = state.withLockedValue { $0.serversToTry() }
        for server in servers {
            let key = server.absoluteString
            do {
                let channel = try await openConnection(to: server)
                refusals = [:]
                state.withLockedValue { $0.currentServer = server }
                return channel
            } catch NATSError.serverError(let detail) where Self.isAuthorizationError(detail) {
                let previous = refusals[key]
                refusals[key] = (detail, previous?.detail == detail ? previous!.count + 1 : 1)
                refused = detail
                lastError = NATSError.authorizationFailed(detail)
            } catch {
                refusals[key] = nil
                lastError = error
            }
        }
        if let refused, lastError as? NATSError == .authorizationFailed(refused) {
            throw NATSError.authorizationFailed(refused)
        }
        // What the last server did wrong, when it said or sent something; else why none answered.
        switch lastError as? NATSError {
        case .protocolError, .tlsFailed, .serverError: throw lastError
        case .connectFailed(let detail) where servers.count > 1:
            throw NATSError.connectFailed("\(servers.count) servers tried, the last \(detail)")
        case .connectFailed: throw lastError
        default: throw NATSError.connectFailed("\(lastError)")
        }
    }

    private func openAnyConnection() async throws -> any Channel {
        var refusals: [String: (detail: String, count: Int)] = [:]
        return try await openAnyConnection(refusals: &refusals)
    }

    private func openConnection(to server: URL) async throws -> any Channel {
        let (host, port) = NATSClientConfiguration.hostAndPort(server)
        let loop = group.next()
        let handshake = loop.makePromise(of: NATSServerInfo.self)
        let tlsFirst = configuration.tlsFirst
        let wantsTLS = server.scheme == "tls" || configuration.tls != nil || tlsFirst
        let hooks = makeHooks(host: host, server: server, wantsTLS: wantsTLS)
        let timeout = TimeAmount(configuration.connectTimeout)
        let firstTLS: NIOSSLContext? = tlsFirst ? try makeTLSContext() : nil
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let firstTLS {
                        try channel.pipeline.syncOperations.addHandler(try Self.tlsHandler(firstTLS, host: host))
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        _NATSChannelHandler(handshake: handshake, hooks: hooks))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host, port: port).get()
        } catch {
            handshake.fail(error)
            throw NATSError.connectFailed("\(host):\(port): \(Self.reason(error))")
        }
        let timer = loop.scheduleTask(in: timeout) {
            handshake.fail(NATSError.timeout)
        }
        do {
            let info = try await handshake.futureResult.get()
            timer.cancel()
            state.withLockedValue { state in
                state.serverInfo = info
                state.discover(info.connectURLs, from: server)
            }
            return channel
        } catch {
            timer.cancel()
            try? await channel.close()
            throw error
        }
    }

    /// Why a TCP connection failed, in a few words (`Connection refused`), rather than NIO's
    /// nested description.
    static func reason(_ error: any Error) -> String {
        var error = error
        if let connection = error as? NIOConnectionError, let first = connection.connectionErrors.first?.error {
            error = first
        }
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        if error is ChannelError { return "timed out" }
        return "\(error)"
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: configuration.tls ?? TLSConfiguration.makeClientConfiguration())
        } catch {
            throw NATSError.tlsFailed("\(error)")
        }
    }

    private static func tlsHandler(_ context: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        // NIOSSL takes no IP address as a server name; without one it checks the certificate
        // against the address it connected to.
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        do {
            return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
        } catch {
            throw NATSError.tlsFailed("\(error)")
        }
    }

    private func makeHooks(host: String, server: URL, wantsTLS: Bool) -> _NATSChannelHandler.Hooks {
        let configuration = self.configuration
        let authentication = configuration.authentication(for: server)
        let tlsFirst = configuration.tlsFirst
        return _NATSChannelHandler.Hooks(
            connectJSON: { info in
                try Self.connectJSON(
                    configuration, authentication: authentication, tls: wantsTLS || info.tlsRequired, info: info)
            },
            tlsHandler: { [weak self] info in
                guard !tlsFirst, wantsTLS || info.tlsRequired, let self else { return nil }
                return try Self.tlsHandler(try self.makeTLSContext(), host: host)
            },
            frames: { [weak self] frames in self?.received(frames) },
            inactive: { [weak self] channel in self?.connectionLost(channel) },
            writable: { [weak self] channel in self?.writePending(to: channel) },
            protocolError: { [weak self] error in
                self?.counters.protocolErrors.add(1, ordering: .relaxed)
                self?.logger.error("\(error)")
            })
    }

    static func connectJSON(
        _ configuration: NATSClientConfiguration, authentication: NATSClientConfiguration.Authentication?, tls: Bool,
        info: NATSServerInfo? = nil
    ) throws -> String {
        var fields: [String: Any] = [
            "verbose": false, "pedantic": false, "tls_required": tls, "name": configuration.name,
            "lang": "swift", "version": "1.0.0", "protocol": 1, "headers": true, "no_responders": true,
        ]
        switch authentication {
        case .userPassword(let user, let password):
            fields["user"] = user
            fields["pass"] = password
        case .token(let token):
            fields["auth_token"] = token
        case .nkey(let seed):
            let pair = try _NKeys.KeyPair(seed: seed)
            fields["nkey"] = pair.publicKey
            fields["sig"] = try signature(of: info?.nonce, with: pair)
        case .credentials(let jwt, let seed):
            fields["jwt"] = jwt
            fields["sig"] = try signature(of: info?.nonce, with: try _NKeys.KeyPair(seed: seed))
        case nil:
            break
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The nonce's Ed25519 signature, base64url without padding.
    private static func signature(of nonce: String?, with pair: _NKeys.KeyPair) throws -> String {
        guard let nonce else {
            throw NATSError.authorizationFailed("the server sent no nonce to sign with the NKEY")
        }
        return _NKeys.base64URL(try pair.sign(Data(nonce.utf8)))
    }

    /// Makes `channel` the connection: subscriptions first, then whatever waited to be written;
    /// starts its keep-alive.
    ///
    /// The channel may have closed already, between its handshake and now (its inactive event
    /// then found another channel, or none, current and was ignored): its close future, watched
    /// from here on, completes at once then, and the lost connection is handled like any other.
    func install(_ channel: any Channel) {
        let pingTimer = startKeepAlive(on: channel)
        let bytes: ByteBuffer? = state.withLockedValue { state in
            guard !state.isClosed else { return nil }
            state.phase = .connected(channel)
            state.pingsOutstanding = 0
            state.pingTimer = pingTimer
            state.backoff.connected(at: .now)
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
        channel.closeFuture.whenComplete { [weak self] _ in self?.connectionLost(channel) }
        channel.writeAndFlush(bytes, promise: nil)
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
