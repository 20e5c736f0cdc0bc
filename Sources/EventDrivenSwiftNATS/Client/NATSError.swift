// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// What can go wrong between the client and a NATS server. Every error is also counted in
/// ``NATSClientStatistics``.
public enum NATSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server sent bytes that are not the NATS protocol; the connection is dropped and
    /// re-established.
    case protocolError(String)
    /// The server answered `-ERR` (an authorization failure, a bad subject, …).
    case serverError(String)
    /// The connection was lost before the operation completed.
    case connectionLost
    /// No server could be reached (after the configured attempts).
    case connectFailed(String)
    /// The client was closed.
    case closed
    /// The outbound buffer holds `limit` bytes not yet written: the message was not queued.
    case outboundBufferFull(limit: Int)
    /// No reply within the timeout.
    case timeout
    /// Nobody subscribes to the subject of a request (status 503).
    case noResponders(subject: String)
    /// A subject, queue group or header that the protocol cannot carry.
    case invalidArgument(String)
    /// TLS was asked for and could not be set up.
    case tlsFailed(String)
    /// The server refused the credentials (`Authorization Violation` and its kin): at
    /// ``NATSClient/connect()``, or repeatedly while reconnecting, after which the client is
    /// closed.
    case authorizationFailed(String)
    /// The user may not publish to, or subscribe to, `subject` (the server's
    /// `Permissions Violation`): the operation that caused it fails with this error.
    case permissionViolation(operation: String, subject: String)
    /// A message of `size` bytes (headers and body) is larger than the `max_payload` the server
    /// announced (`limit`): it was not sent. (The server would have closed the connection.)
    case payloadTooLarge(size: Int, limit: Int)

    /// The error in words.
    public var description: String {
        switch self {
        case .protocolError(let detail): "NATS protocol error: \(detail)"
        case .serverError(let detail): "NATS server error: \(detail)"
        case .connectionLost: "the connection to the NATS server was lost"
        case .connectFailed(let detail): "could not connect to a NATS server: \(detail)"
        case .closed: "the NATS client is closed"
        case .outboundBufferFull(let limit): "the outbound buffer is full (\(limit) bytes pending)"
        case .timeout: "no reply from the NATS server in time"
        case .noResponders(let subject): "no responders on \(subject)"
        case .invalidArgument(let detail): "invalid argument: \(detail)"
        case .tlsFailed(let detail): "TLS failed: \(detail)"
        case .authorizationFailed(let detail): "the NATS server refused the credentials: \(detail)"
        case .permissionViolation(let operation, let subject): "not permitted to \(operation) \(subject)"
        case .payloadTooLarge(let size, let limit):
            "a message of \(size) bytes is larger than the server's max_payload of \(limit) bytes"
        }
    }
}
