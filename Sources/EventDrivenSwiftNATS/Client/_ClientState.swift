// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOCore

/// Everything a ``NATSClient`` changes over time, kept in one value behind the client's lock.
struct _ClientState: Sendable {
    enum Phase: Sendable {
        case idle
        case connected(any Channel)
        case reconnecting
        case closed
    }

    struct SubscriptionEntry: Sendable {
        var subject: String
        var queue: String?
        var handler: @Sendable (NATSMessage) -> Void
        /// Told when the server refuses the subscription (a permission violation).
        var refused: (@Sendable (NATSError) -> Void)?
    }

    struct PendingRequest: Sendable {
        /// Who gets the reply.
        enum Receiver: Sendable {
            /// A closure made for this request.
            case callback(@Sendable (Result<NATSMessage, NATSError>) -> Void)
            /// An object that takes the replies of many requests, and the request's key there.
            case sink(any _NATSReplySink, UInt64)
        }

        var deadline: NIODeadline
        /// The subject it was published to: a permission violation for it fails the request.
        var subject: String
        var receiver: Receiver

        /// Hands `result` to the receiver.
        func complete(_ result: Result<NATSMessage, NATSError>) {
            switch receiver {
            case .callback(let callback): callback(result)
            case .sink(let sink, let key): sink.reply(to: key, result)
            }
        }
    }

    var phase = Phase.idle
    /// Bytes not yet handed to the channel: written in one go per event-loop tick.
    var pending = ByteBuffer()
    var flushScheduled = false
    var subscriptions: [UInt64: SubscriptionEntry] = [:]
    var nextSID: UInt64 = 1
    var requests: [UInt64: PendingRequest] = [:]
    /// The subscription of the request inbox: its messages answer ``requests``.
    var inboxSID: UInt64?
    /// One entry per `PING` sent, in order, matched by the server's `PONG`s: a ``NATSClient/flush()``
    /// waiting, or `nil` for a keep-alive `PING` and for a flush that was cancelled.
    var pongWaiters: [FlushWaiter?] = []
    /// The number of the last ``NATSClient/flush()``, so that a cancelled one finds its entry.
    var lastFlush: UInt64 = 0

    /// A ``NATSClient/flush()`` waiting for the `PONG` of its `PING`.
    struct FlushWaiter {
        let number: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// Takes the entry of flush `number` out of ``pongWaiters``, leaving `nil` in its place so that
    /// later `PONG`s still answer the `PING`s they belong to; `nil` when its `PONG` came already.
    mutating func cancelFlush(_ number: UInt64) -> CheckedContinuation<Void, any Error>? {
        guard let index = pongWaiters.firstIndex(where: { $0?.number == number }) else { return nil }
        defer { pongWaiters[index] = nil }
        return pongWaiters[index]?.continuation
    }
    /// Keep-alive `PING`s sent on this connection since the last `PONG`.
    var pingsOutstanding = 0
    /// The connection's keep-alive timer.
    var pingTimer: RepeatedTask?
    var serverInfo: NATSServerInfo?
    var sweeper: RepeatedTask?
    var reconnectTask: Task<Void, Never>?
    /// The reconnection back-off, kept across connections: one lost soon after it was
    /// established does not reset it.
    var backoff = _ReconnectBackoff()
    /// The servers to connect to: the configured ones (shuffled unless told not to), then those
    /// the servers announced (`connect_urls`), at most ``maximumDiscoveredServers`` of them.
    var servers: [URL] = []
    /// The servers in ``servers`` that came from `connect_urls`, not from the configuration.
    var discoveredServers: Set<URL> = []
    /// The most servers ``discover(_:from:)`` keeps besides the configured ones: a server that
    /// sends `INFO` after `INFO`, each with new `connect_urls`, cannot grow the list beyond it.
    static let maximumDiscoveredServers = 64
    /// The server of the current (or last) connection.
    var currentServer: URL?
    /// Why the client closed by itself, if it did.
    var closeReason: NATSError?
    /// Receives errors that belong to no call (a refused plain publish or subscription).
    var errorHandler: (@Sendable (NATSError) -> Void)?
    /// Called once the client is closed.
    var closeHandlers: [@Sendable (NATSError?) -> Void] = []

    /// The servers in the order to try them: the current one last.
    func serversToTry() -> [URL] {
        guard let current = currentServer, let index = servers.firstIndex(of: current) else { return servers }
        return Array(servers[(index + 1)...] + servers[...index])
    }

    /// Takes a server's `connect_urls` (`host:port` each) as the servers the cluster has now:
    /// those the list lacks are added, and servers added this way that the list no longer names
    /// are dropped (``servers`` stays bounded however often a server sends `INFO`), except
    /// `server`, which sent it.
    ///
    /// A server added this way gets the scheme of `server` and no credentials: the URL
    /// credentials of `server` go to that server only; ``NATSClientConfiguration/authentication``
    /// goes to these as to every server whose URL carries none. An entry that is not a plain
    /// `host:port` (one with `user@`, a path, a query) is ignored, and so is everything beyond the
    /// first ``maximumDiscoveredServers``.
    mutating func discover(_ urls: [String], from server: URL) {
        guard !urls.isEmpty else { return }
        var announced: [URL] = []
        for entry in urls.prefix(Self.maximumDiscoveredServers) {
            guard let url = Self.discovered(entry, scheme: server.scheme ?? "nats") else { continue }
            let address = NATSClientConfiguration.hostAndPort(url)
            guard !announced.contains(where: { NATSClientConfiguration.hostAndPort($0) == address }) else { continue }
            announced.append(url)
        }
        // Drop what the cluster no longer names: the servers discovered before and not announced now.
        let stale = discoveredServers.filter { old in
            old != server
                && !announced.contains {
                    NATSClientConfiguration.hostAndPort($0) == NATSClientConfiguration.hostAndPort(old)
                }
        }
        if !stale.isEmpty {
            servers.removeAll { stale.contains($0) }
            discoveredServers.subtract(stale)
        }
        for url in announced where discoveredServers.count < Self.maximumDiscoveredServers {
            let address = NATSClientConfiguration.hostAndPort(url)
            guard !servers.contains(where: { NATSClientConfiguration.hostAndPort($0) == address }) else { continue }
            servers.append(url)
            discoveredServers.insert(url)
        }
    }

    /// `scheme://host:port` for a `connect_urls` entry, or `nil` unless it is a plain `host:port`
    /// (IPv6 literals in brackets).
    static func discovered(_ entry: String, scheme: String) -> URL? {
        guard entry.utf8.count <= 300, let parts = URLComponents(string: "\(scheme)://\(entry)"),
            let host = parts.host, !host.isEmpty, parts.user == nil, parts.password == nil,
            parts.path.isEmpty, parts.query == nil, parts.fragment == nil, (parts.port ?? 4222) > 0,
            (parts.port ?? 4222) < 65_536
        else { return nil }
        return parts.url
    }

    /// A reply token no one can guess (a random 64-bit number) that no pending request uses.
    mutating func newToken() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        while true {
            let token = generator.next() as UInt64
            if requests[token] == nil { return token }
        }
    }

    /// 128 random bits in 22 base-62 characters, for an inbox no one can guess.
    static func randomToken() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        var generator = SystemRandomNumberGenerator()
        return String(
            decoding: (0..<22).map { _ in alphabet[Int.random(in: 0..<62, using: &generator)] }, as: UTF8.self)
    }

    var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    var channel: (any Channel)? {
        if case .connected(let channel) = phase { return channel }
        return nil
    }

    /// `SUB` for every subscription, for a new connection.
    func resubscriptions(into out: inout ByteBuffer) {
        for (sid, entry) in subscriptions.sorted(by: { $0.key < $1.key }) {
            NATSCommandEncoder.subscribe(subject: entry.subject, queue: entry.queue, sid: sid, into: &out)
        }
    }

    /// Removes and returns every request and flush waiter: the connection they were sent on is gone.
    mutating func takeWaiters() -> ([PendingRequest], [CheckedContinuation<Void, any Error>]) {
        defer {
            requests = [:]
            pongWaiters = []
        }
        return (Array(requests.values), pongWaiters.compactMap { $0?.continuation })
    }
}
