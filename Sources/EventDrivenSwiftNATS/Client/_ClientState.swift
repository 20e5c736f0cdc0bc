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
    /// waiting, or `nil` for a keep-alive `PING`.
    var pongWaiters: [CheckedContinuation<Void, any Error>?] = []
    /// Keep-alive `PING`s sent on this connection since the last `PONG`.
    var pingsOutstanding = 0
    /// The connection's keep-alive timer.
    var pingTimer: RepeatedTask?
    var serverInfo: NATSServerInfo?
    var sweeper: RepeatedTask?
    var reconnectTask: Task<Void, Never>?
    /// The servers to connect to: the configured ones (shuffled unless told not to), then those
    /// the servers announced (`connect_urls`).
    var servers: [URL] = []
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

    /// Adds the servers of a cluster's `connect_urls` (`host:port`) that the pool lacks, with the
    /// scheme and credentials of `server`, which announced them (a cluster shares its logins).
    mutating func discover(_ urls: [String], from server: URL) {
        for entry in urls.prefix(64) {
            guard var parts = URLComponents(string: "\(server.scheme ?? "nats")://\(entry)"), parts.host != nil else {
                continue
            }
            let known = servers.contains {
                NATSClientConfiguration.hostAndPort($0) == (
                    parts.host!.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), parts.port ?? 4222
                )
            }
            guard !known else { continue }
            parts.user = server.user
            parts.password = server.password
            if let url = parts.url { servers.append(url) }
        }
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
        return (Array(requests.values), pongWaiters.compactMap { $0 })
    }
}
