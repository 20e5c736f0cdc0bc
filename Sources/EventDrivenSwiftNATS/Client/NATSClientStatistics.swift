// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// What a ``NATSClient`` has done and what went wrong, counted since it was created.
public struct NATSClientStatistics: Sendable, Equatable {
    /// Messages published (`PUB`/`HPUB` queued for writing).
    public var messagesOut = 0
    /// Messages received (`MSG`/`HMSG`).
    public var messagesIn = 0
    /// Connections established, the first one included.
    public var connects = 0
    /// Connections lost while the client was open, stale ones included.
    public var disconnects = 0
    /// Connections the client closed because keep-alive `PING`s went unanswered
    /// (``NATSClientConfiguration/maximumPingsOutstanding``); also counted in ``disconnects``.
    public var staleConnections = 0
    /// Protocol errors (bad bytes from the server).
    public var protocolErrors = 0
    /// `-ERR` operations from the server.
    public var serverErrors = 0
    /// Publishes refused because the outbound buffer was full.
    public var outboundBufferFull = 0
    /// Requests that got no reply in time.
    public var requestTimeouts = 0
    /// Requests failed because the connection was lost.
    public var requestsLost = 0
    /// Messages for a subscription that no longer existed.
    public var messagesWithoutSubscription = 0
    /// Messages dropped because the stream of ``NATSClient/messages(on:queue:limit:)`` that
    /// should take them was full.
    public var messagesDropped = 0
    /// `Permissions Violation` errors from the server (also counted in ``serverErrors``).
    public var permissionViolations = 0
    /// Connections left because their server announced lame-duck mode (also counted in
    /// ``disconnects``).
    public var lameDuckMoves = 0
}

/// The live counters behind ``NATSClientStatistics``: relaxed atomics, read without a lock.
final class _NATSClientCounters: Sendable {
    let messagesOut = Atomic<Int>(0)
    let messagesIn = Atomic<Int>(0)
    let connects = Atomic<Int>(0)
    let disconnects = Atomic<Int>(0)
    let staleConnections = Atomic<Int>(0)
    let protocolErrors = Atomic<Int>(0)
    let serverErrors = Atomic<Int>(0)
    let outboundBufferFull = Atomic<Int>(0)
    let requestTimeouts = Atomic<Int>(0)
    let requestsLost = Atomic<Int>(0)
    let messagesWithoutSubscription = Atomic<Int>(0)
    let messagesDropped = Atomic<Int>(0)
    let permissionViolations = Atomic<Int>(0)
    let lameDuckMoves = Atomic<Int>(0)

    var snapshot: NATSClientStatistics {
        NATSClientStatistics(
            messagesOut: messagesOut.load(ordering: .relaxed),
            messagesIn: messagesIn.load(ordering: .relaxed),
            connects: connects.load(ordering: .relaxed),
            disconnects: disconnects.load(ordering: .relaxed),
            staleConnections: staleConnections.load(ordering: .relaxed),
            protocolErrors: protocolErrors.load(ordering: .relaxed),
            serverErrors: serverErrors.load(ordering: .relaxed),
            outboundBufferFull: outboundBufferFull.load(ordering: .relaxed),
            requestTimeouts: requestTimeouts.load(ordering: .relaxed),
            requestsLost: requestsLost.load(ordering: .relaxed),
            messagesWithoutSubscription: messagesWithoutSubscription.load(ordering: .relaxed),
            messagesDropped: messagesDropped.load(ordering: .relaxed),
            permissionViolations: permissionViolations.load(ordering: .relaxed),
            lameDuckMoves: lameDuckMoves.load(ordering: .relaxed))
    }
}
