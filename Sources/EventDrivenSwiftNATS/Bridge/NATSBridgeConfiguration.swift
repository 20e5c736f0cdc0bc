// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// How a ``NATSBridge`` names things on the broker and how it retries.
public struct NATSBridgeConfiguration: Sendable {
    /// Consumer and publish settings.
    public struct Consumers: Sendable {
        /// How long the server waits for an ack before it redelivers (a worker that died). The
        /// bridge restarts it (`+WPI`) every third of it for each message it holds, from the
        /// moment the message arrived; what it cannot restart is the time between the server's
        /// send and the message's arrival, so a fetch (``fetchBatch``) must be read well within
        /// it: a short ack wait wants a small batch.
        public var ackWait: Duration = .seconds(30)
        /// How often a message is delivered at most; the last failure dead-letters it.
        public var maxDeliver = 5
        /// The delays before redelivery after a handler threw: the n-th failure waits the n-th
        /// delay (the last one repeats).
        public var retryDelays: [Duration] = [.seconds(1), .seconds(5), .seconds(30)]
        /// How many deliveries the server lets a consumer hold unacknowledged.
        public var maxAckPending = 20_000
        /// How many messages one fetch asks for; values below 1 count as 1.
        public var fetchBatch = 512
        /// How many messages this process holds at most (fetched, not yet settled).
        public var maxHeld = 2_048
        /// How long one fetch waits on the server for messages; it must be above zero (see
        /// ``NATSBridgeConfiguration/validate()``). A stop waits at most 2 s for the fetch
        /// outstanding.
        public var fetchExpiry: Duration = .seconds(1)
        /// How long a publish waits for the server's ack before it is retried.
        public var publishTimeout: Duration = .seconds(5)
        /// How often a publish is sent at least (with the same `Nats-Msg-Id`) before it is reported.
        public var publishAttempts = 4
        /// How long a publish is retried at least before it is reported: long enough for a
        /// cluster to elect a new leader for the stream (30 s by default; `.zero` to count
        /// attempts only).
        public var publishRetryWindow: Duration = .seconds(30)
        /// How long a broadcast consumer outlives its process on the server.
        public var broadcastInactiveThreshold: Duration = .seconds(60)
        /// How long the server keeps a durable broadcast consumer
        /// (``NATSImportMode/durableBroadcast(_:)``) that nobody uses: an instance away longer
        /// starts afresh. 7 days by default.
        public var durableBroadcastInactiveThreshold: Duration = .seconds(7 * 24 * 3_600)
        /// How long the importer waits before it opens a consumer again that the server lost
        /// soon after it was opened (`409 Consumer Deleted` at every fetch); each such loss in a
        /// row doubles the wait, up to ``maxReopenDelay``. A consumer kept longer than twice
        /// ``maxReopenDelay`` is opened again at once. A stop cuts the wait short. 100 ms by
        /// default; it must be above zero.
        public var reopenDelay: Duration = .milliseconds(100)
        /// The longest wait before a lost consumer is opened again (see ``reopenDelay``). 2 s by
        /// default; it must not be below ``reopenDelay``.
        public var maxReopenDelay: Duration = .seconds(2)

        /// The defaults.
        public init() {}

        /// The wait before the next open after `losses` consumers lost in a row: ``reopenDelay``
        /// doubled for each loss after the first, at most ``maxReopenDelay``.
        func reopenDelay(afterLosses losses: Int) -> Duration {
            var delay = reopenDelay
            for _ in 1..<min(max(losses, 1), 32) where delay < maxReopenDelay { delay = delay * 2 }
            return min(delay, maxReopenDelay)
        }
    }

    /// The subject prefix: events travel on `<prefix>.<event name>`. One or more dot-separated
    /// tokens, without wildcards (`*`, `>`) or whitespace (see ``validate()``).
    public var prefix = "eds"
    /// The stream's name: not empty, without `.`, `*`, `>`, `/`, `\`, whitespace or control
    /// bytes (see ``validate()``).
    public var streamName = "EDS"
    /// File (default) or memory storage.
    public var storage = JetStreamStreamConfiguration.Storage.file
    /// The duplicate window of the stream.
    public var duplicateWindow: Duration = .seconds(120)
    /// How many servers of a cluster keep each message: 1 (the default, for one server), 3 or 5.
    public var replicas = 1
    /// How long the stream keeps a message at most; `nil` (the default) for no limit.
    public var maxAge: Duration?
    /// How many bytes the stream keeps at most, the oldest going first; `nil` (the default) for
    /// no limit.
    public var maxBytes: Int64?
    /// Where dead letters are stored: with the events (`nil`, the default: on
    /// `<prefix>.deadletter.<name>` in the events' stream), or in a stream of their own.
    public var deadLetterStream: DeadLetterStream?
    /// The JetStream domain of the servers (a leaf node's or a hub's), when there is one: the
    /// API is then `$JS.<domain>.API`.
    public var jetStreamDomain: String?
    /// The JetStream API prefix, when it is neither `$JS.API` nor a domain's (an account import);
    /// it wins over ``jetStreamDomain``.
    public var jetStreamAPIPrefix: String?

    /// A stream of their own for dead letters: they are kept apart from the events, with limits
    /// of their own, on `<subjectPrefix>.<name>`.
    public struct DeadLetterStream: Sendable {
        /// The stream's name (`EDS_DEADLETTER` by default).
        public var name = "EDS_DEADLETTER"
        /// Their subject prefix; it must lie outside `<prefix>.>` (`eds_deadletter` by default).
        public var subjectPrefix = "eds_deadletter"
        /// How long a dead letter is kept (30 days by default).
        public var maxAge: Duration? = .seconds(30 * 24 * 3_600)
        /// How many bytes the stream keeps at most; `nil` (the default) for no limit.
        public var maxBytes: Int64?

        /// The defaults.
        public init() {}
    }
    /// This process's id in `Eds-Source`.
    public var source = "\(ProcessInfo.processInfo.hostName)/\(ProcessInfo.processInfo.processIdentifier)"
    /// Consumer and publish settings.
    public var consumers = Consumers()

    /// The defaults: prefix `eds`, stream `EDS`, file storage, a 2-minute duplicate window.
    public init() {}

    /// The stream this configuration describes.
    public var streamConfiguration: JetStreamStreamConfiguration {
        JetStreamStreamConfiguration(
            name: streamName, subjects: ["\(prefix).>"], storage: storage,
            duplicateWindow: NATSJetStreamTransport.nanoseconds(duplicateWindow), replicas: replicas,
            maxAge: maxAge.map(NATSJetStreamTransport.nanoseconds) ?? 0, maxBytes: maxBytes ?? -1)
    }

    /// The dead letters' own stream, when they have one.
    public var deadLetterStreamConfiguration: JetStreamStreamConfiguration? {
        deadLetterStream.map { stream in
            JetStreamStreamConfiguration(
                name: stream.name, subjects: ["\(stream.subjectPrefix).>"], storage: storage,
                duplicateWindow: NATSJetStreamTransport.nanoseconds(duplicateWindow), replicas: replicas,
                maxAge: stream.maxAge.map(NATSJetStreamTransport.nanoseconds) ?? 0, maxBytes: stream.maxBytes ?? -1)
        }
    }

    /// The JetStream API prefix: ``jetStreamAPIPrefix``, else the domain's, else `$JS.API`.
    public var apiPrefix: String {
        jetStreamAPIPrefix ?? jetStreamDomain.map { "$JS.\($0).API" } ?? "$JS.API"
    }

    /// `<prefix>.<name>`.
    public func subject(for name: String) -> String { "\(prefix).\(name)" }

    /// `<prefix>.deadletter.<name>`, or `<subjectPrefix>.<name>` with a dead-letter stream.
    public func deadLetterSubject(for name: String) -> String {
        if let deadLetterStream { return "\(deadLetterStream.subjectPrefix).\(name)" }
        return "\(prefix).deadletter.\(name)"
    }
}
