import Foundation
import NIOSSL

/// Where and how a ``NATSClient`` connects.
public struct NATSClientConfiguration: Sendable {
    /// Credentials the server may require.
    public enum Authentication: Sendable, Equatable {
        /// `user` and `pass` in `CONNECT`.
        case userPassword(user: String, password: String)
        /// `auth_token` in `CONNECT`.
        case token(String)
    }

    /// How the client reconnects after it lost its connection.
    public struct Reconnect: Sendable {
        /// The wait before the first new attempt; doubled after each failure.
        public var initialDelay: Duration = .milliseconds(20)
        /// The longest wait between attempts.
        public var maximumDelay: Duration = .seconds(2)
        /// How many attempts in a row before the client gives up and closes; `nil` for no limit.
        public var maximumAttempts: Int? = nil

        /// The defaults: 20 ms doubling up to 2 s, forever.
        public init() {}
    }

    /// The servers to try, in order (`nats://host:port`, `tls://host:port`, with `user:pass@` or
    /// `token@` when the server needs credentials).
    public var servers: [URL]
    /// The client's name, shown by the server's monitoring.
    public var name: String = "EventDrivenSwiftNATS"
    /// Credentials; by default taken from the first server URL that carries some.
    public var authentication: Authentication?
    /// TLS settings; TLS is used when this is set, when a URL's scheme is `tls`, or when the
    /// server requires it.
    public var tls: TLSConfiguration?
    /// Reconnection after a lost connection, with the subscriptions re-established.
    public var reconnect = Reconnect()
    /// The most bytes the client holds that are not yet written to the socket (including while it
    /// reconnects); a publish beyond it fails with ``NATSError/outboundBufferFull(limit:)``.
    public var maximumOutboundBytes = 64 * 1024 * 1024
    /// How long a request waits for its reply by default.
    public var requestTimeout: Duration = .seconds(5)
    /// How long one connection attempt, handshake included, may take.
    public var connectTimeout: Duration = .seconds(5)
    /// How often the client sends `PING` on an open connection, to find out that it still
    /// works: a connection can die without the socket noticing (a peer that vanished, a NAT or
    /// firewall that forgot it). Two minutes by default, as other NATS clients do; `.zero` turns
    /// the keep-alive off.
    public var pingInterval: Duration = .seconds(120)
    /// How many keep-alive `PING`s may go unanswered. When the interval comes round with this
    /// many still unanswered, the connection is stale: the client closes it and reconnects like
    /// after any lost connection (backoff, subscriptions re-established, counted in
    /// ``NATSClientStatistics/disconnects`` and ``NATSClientStatistics/staleConnections``). Any
    /// `PONG` from the server answers them all. At least 1; 2 by default.
    public var maximumPingsOutstanding = 2

    /// A configuration for the given servers.
    public init(servers: [URL]) {
        self.servers = servers
        for url in servers where authentication == nil {
            if let user = url.user, let password = url.password {
                authentication = .userPassword(user: user, password: password)
            } else if let token = url.user {
                authentication = .token(token)
            }
        }
    }

    /// A configuration for one server, `nats://127.0.0.1:4222` style.
    public init(server: String) throws {
        guard let url = URL(string: server), url.host != nil else {
            throw NATSError.invalidArgument("not a server URL: \(server)")
        }
        self.init(servers: [url])
    }
}
