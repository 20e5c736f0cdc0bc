// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOCore

/// A message received from the server (`MSG` or `HMSG`).
public struct NATSMessage: Sendable {
    /// The subject it was published on.
    public var subject: String
    /// Where a reply goes, if the publisher asked for one (for JetStream, the ack subject).
    public var replyTo: String?
    /// Its headers; empty for a plain `MSG`.
    public var headers: NATSHeaders
    /// Its body.
    public var payload: ByteBuffer
    /// The id of the subscription that received it.
    public var subscriptionID: UInt64
    /// Why its header block could not be decoded (``headers`` is then empty): the message alone
    /// is unreadable, the connection is sound. A bridge importer dead-letters such a message.
    public var headerError: NATSError?
    /// The undecodable header block as it arrived, when ``headerError`` is set.
    public var rawHeaders: ByteBuffer?

    /// Creates a message.
    public init(
        subject: String, replyTo: String? = nil, headers: NATSHeaders = NATSHeaders(), payload: ByteBuffer,
        subscriptionID: UInt64 = 0
    ) {
        self.subject = subject
        self.replyTo = replyTo
        self.headers = headers
        self.payload = payload
        self.subscriptionID = subscriptionID
    }

    /// The body as bytes.
    public var bytes: [UInt8] { Array(payload.readableBytesView) }

    /// The body as UTF-8 text.
    public var string: String { String(decoding: payload.readableBytesView, as: UTF8.self) }
}
