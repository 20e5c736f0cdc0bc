// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import NIOSSL

/// Where and how a ``NATSClient`` connects.
public struct NATSClientConfiguration: Sendable {
    /// Credentials the server may require. Their ``description`` names the method only: no
    /// secret ever reaches a log or an error through it.
    public enum Authentication: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
        /// `user` and `pass` in `CONNECT`.
        case userPassword(user: String, password: String)
        /// `auth_token` in `CONNECT`.
        case token(String)
        /// An NKEY user: `seed` is the user's seed (`SU…`). The client sends the public key
        /// and signs the server's nonce with it; the server must list the public key
        /// (`authorization { users = [ { nkey: U… } ] }`).
        case nkey(seed: String)
        /// A JWT user (decentralized authentication, an operator set-up): the user's JWT and the
        /// seed that signs the server's nonce, as a `.creds` file holds them
        /// (``credentialsFile(_:)``).
        case credentials(jwt: String, seed: String)

        /// The user JWT and seed of a `.creds` file (as `nsc` writes them: a `NATS USER JWT`
        /// block, then a `USER NKEY SEED` block).
        /// - Throws: ``NATSError/invalidArgument(_:)`` when the file cannot be read or lacks a
        ///   block; its text names the path, never the file's content.
        public static func credentialsFile(_ path: String) throws -> Authentication {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw NATSError.invalidArgument("cannot read the credentials file \(path)")
            }
            return try credentials(parsing: String(decoding: data, as: UTF8.self), source: path)
        }

        /// The JWT and seed of a `.creds` file's text.
        static func credentials(parsing text: String, source: String) throws -> Authentication {
            var blocks: [String] = []
            var inBlock = false
            for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if line.hasPrefix("---"), line.contains("BEGIN") {
                    inBlock = true
                } else if inBlock, !line.isEmpty {
                    blocks.append(line)
                    inBlock = false
                }
            }
            guard blocks.count >= 2, blocks[0].hasPrefix("ey"), blocks[1].hasPrefix("SU") else {
                throw NATSError.invalidArgument("\(source) holds no user JWT and user seed")
            }
            return .credentials(jwt: blocks[0], seed: blocks[1])
        }

        /// The method, without secrets: `user/password (user alice)`, `token`, `NKEY (U…)`…
        public var description: String {
            switch self {
            case .userPassword(let user, _): "user/password (user \(user))"
            case .token: "token"
            case .nkey(let seed): "NKEY \((try? _NKeys.KeyPair(seed: seed).publicKey) ?? "(unreadable seed)")"
            case .credentials: "JWT credentials"
            }
        }

        /// Same as ``description``: no secret.
        public var debugDescription: String { description }
    }

    /// How the client reconnects after it lost its connection.
    ///
    /// After a connection that stayed up for ``stableConnectionDuration``, the first new attempt
    /// is immediate; each failed attempt then waits ``initialDelay``, doubled each time up to
    /// ``maximumDelay``, jittered. A connection lost sooner (a server that completes the
    /// handshake and closes the connection at once, again and again) does not reset that
    /// back-off: the next attempt waits the doubled delay, as after a failed attempt, so such a
    /// server gets at most one connection per ``maximumDelay`` once the delay has grown.
    public struct Reconnect: Sendable {
        /// The first wait: after the first failed attempt, or before the first attempt when the
        /// connection was lost sooner than ``stableConnectionDuration``; doubled after each.
        /// A negative delay (this one or ``maximumDelay``) counts as zero.
        public var initialDelay: Duration = .milliseconds(20)
        /// The longest wait between attempts.
        public var maximumDelay: Duration = .seconds(2)
        /// How many failed attempts in a row before the client gives up and closes; `nil` for no
        /// limit. An attempt that completes the handshake ends the run, however soon its
        /// connection is lost: a server that accepts and drops every connection slows the
        /// client's attempts down (see ``stableConnectionDuration``) but does not close it.
        public var maximumAttempts: Int? = nil
        /// How long a connection must stay up to count as re-established for the back-off: one
        /// lost sooner does not reset it, and the attempt after it waits the doubled, jittered
        /// delay as after a failed attempt. 1 s by default; zero resets the back-off on every
        /// connection (each lost connection is then retried at once).
        public var stableConnectionDuration: Duration = .seconds(1)
        /// The share of each wait that is random: the wait is between `(1 - jitter) × delay` and
        /// the delay, so that the clients of a restarted server do not all come back at one
        /// instant. 0.5 by default; 0 for none.
        public var jitter = 0.5

        /// The defaults: 20 ms doubling up to 2 s, jittered by half, forever.
        public init() {}

        /// `delay` less a random share of up to ``jitter``.
        func jittered(_ delay: Duration) -> Duration {
            let share = min(max(jitter, 0), 1)
            guard share > 0 else { return delay }
            return delay * (1 - Double.random(in: 0...share))
        }
    }

    /// The servers to try (`nats://host:port`, `tls://host:port`, IPv6 literals in brackets,
    /// with `user:pass@` or `token@` when the server needs credentials: those are sent to that
    /// server only; a `/`, `?`, `#`, `@` or `,` in them is percent-encoded). The servers a cluster
    /// announces (`connect_urls`) are added as they come, at most 64 (those of the latest `INFO`
    /// replace those of earlier ones), with the scheme of the server that announced them and
    /// without its URL's credentials: ``authentication`` goes to them.
    public var servers: [URL]
    /// Whether the client tries ``servers`` in random order (once shuffled, then in turn), so
    /// that clients given the same list spread over the cluster. On by default.
    public var randomizeServers = true
    /// The subject prefix of this client's request inbox, `_INBOX` by default: replies arrive on
    /// `<inboxPrefix>.<22 random characters>.<random token>`. Set it to what the user's
    /// permissions allow (`_INBOX_orders`, say, with `sub` and `pub allow_responses` for
    /// `_INBOX_orders.>`).
    public var inboxPrefix = "_INBOX"
    /// The client's name, shown by the server's monitoring.
    public var name: String = "EventDrivenSwiftNATS"
    /// Credentials for every server whose URL carries none (a URL's own `user:pass@` or
    /// `token@` goes to that server only), the servers a cluster announces included.
    public var authentication: Authentication?
    /// How many times in a row a server may refuse the credentials while the client
    /// reconnects before it gives up: it then closes with
    /// ``NATSError/authorizationFailed(_:)`` (a bridge stops with it). 2 by default.
    public var maximumAuthorizationFailures = 2
    /// TLS settings; TLS is used when this is set, when a URL's scheme is `tls`, or when the
    /// server requires it.
    public var tls: TLSConfiguration?
    /// Whether the TLS handshake comes first, before the server's `INFO` (nats-server's
    /// `tls { handshake_first: true }`), rather than after it. Implies TLS.
    public var tlsFirst = false
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

    /// A client TLS configuration from PEM files: a client certificate chain and its private key
    /// (for servers that `verify` clients), and the certificate authorities to trust instead of
    /// the system's. Paths only: the files are read here.
    /// - Throws: ``NATSError/tlsFailed(_:)`` naming the file that cannot be read.
    public static func tlsConfiguration(
        certificateChainFile: String? = nil, privateKeyFile: String? = nil, trustRootsFile: String? = nil
    ) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        do {
            if let certificateChainFile {
                tls.certificateChain = try NIOSSLCertificate.fromPEMFile(certificateChainFile).map { .certificate($0) }
            }
        } catch {
            throw NATSError.tlsFailed("cannot read the certificate chain \(certificateChainFile ?? "")")
        }
        do {
            if let privateKeyFile {
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: privateKeyFile, format: .pem))
            }
        } catch {
            throw NATSError.tlsFailed("cannot read the private key \(privateKeyFile ?? "")")
        }
        do {
            if let trustRootsFile { tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(trustRootsFile)) }
        } catch {
            throw NATSError.tlsFailed("cannot read the trust roots \(trustRootsFile ?? "")")
        }
        return tls
    }

    /// A configuration for the given servers.
    public init(servers: [URL]) {
        self.servers = servers
    }

    /// A configuration for one server, `nats://127.0.0.1:4222` style, or several separated by
    /// commas (`nats://a:4222,nats://b:4222`); a URL without a scheme is `nats://`. A URL with a
    /// path, a query or a fragment is refused: a `/`, `?` or `#` there is most likely part of a
    /// password that was not percent-encoded.
    /// - Throws: ``NATSError/invalidArgument(_:)``, whose text shows the URL without its
    ///   credentials (nothing before the host of a list that holds an `@` anywhere).
    public init(server: String) throws {
        var urls: [URL] = []
        let parts = server.split(separator: ",", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            let text = part.trimmingCharacters(in: .whitespaces)
            let withScheme = Self.schemeEnd(text) == nil ? "nats://" + text : text
            guard let url = URL(string: withScheme), let scheme = url.scheme, ["nats", "tls"].contains(scheme),
                let host = url.host, !host.isEmpty, (url.port ?? 4222) > 0, (url.port ?? 4222) < 65_536,
                url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil
            else {
                // A comma in a password splits it: with an `@` anywhere in the list, a part
                // without one may be the start of a password.
                var shown = Self.redacted(text)
                if shown == text, server.contains("@") {
                    shown = text[..<(Self.schemeEnd(text) ?? text.startIndex)] + "***"
                }
                let position = parts.count > 1 ? " (entry \(index + 1) of \(parts.count))" : ""
                throw NATSError.invalidArgument("not a server URL\(position): \(shown)")
            }
            urls.append(url)
        }
        self.init(servers: urls)
    }

    /// `url` with the credentials it may carry replaced by `***`, for logs and errors.
    ///
    /// Everything between the scheme and the last `@` is taken for credentials, whatever it
    /// holds: a password with an unencoded `/`, `?`, `#` or `@` is hidden whole (a URL whose
    /// path or query holds an `@` loses more than its credentials, never less).
    public static func redacted(_ url: String) -> String {
        let afterScheme = schemeEnd(url) ?? url.startIndex
        guard let at = url[afterScheme...].lastIndex(of: "@") else { return url }
        return String(url[..<afterScheme]) + "***" + String(url[at...])
    }

    /// Where `text`'s `scheme://` ends, if it starts with one (a scheme is a letter, then
    /// letters, digits, `+`, `-` or `.`; `alice:pw://x` has none).
    static func schemeEnd(_ text: String) -> String.Index? {
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return separator.upperBound
    }

    /// The credentials for `server`: its URL's own (percent-decoded), else ``authentication``.
    func authentication(for server: URL) -> Authentication? {
        let parts = URLComponents(url: server, resolvingAgainstBaseURL: false)
        if let user = parts?.user, !user.isEmpty {
            if let password = parts?.password { return .userPassword(user: user, password: password) }
            return .token(user)
        }
        return authentication
    }

    /// The host (without the brackets of an IPv6 literal) and port of `server`.
    static func hostAndPort(_ server: URL) -> (host: String, port: Int) {
        var host = server.host ?? "127.0.0.1"
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, server.port ?? 4222)
    }
}

extension NATSClientConfiguration: CustomStringConvertible, CustomDebugStringConvertible {
    /// The servers without their credentials, and the authentication method without its secret.
    public var description: String {
        let servers = servers.map { Self.redacted($0.absoluteString) }.joined(separator: ",")
        return
            "NATSClientConfiguration(servers: \(servers), authentication: \(authentication.map(\.description) ?? "none"), "
            + "tls: \(tls != nil || tlsFirst), inboxPrefix: \(inboxPrefix))"
    }

    /// Same as ``description``: no secret.
    public var debugDescription: String { description }
}
