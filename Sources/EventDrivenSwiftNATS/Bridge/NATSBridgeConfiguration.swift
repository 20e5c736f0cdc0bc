import Foundation

/// How a ``NATSBridge`` names things on the broker and how it retries.
public struct NATSBridgeConfiguration: Sendable {
    /// Consumer and publish settings.
    public struct Consumers: Sendable {
        /// How long the server waits for an ack before it redelivers (a worker that died).
        public var ackWait: Duration = .seconds(30)
        /// How often a message is delivered at most; the last failure dead-letters it.
        public var maxDeliver = 5
        /// The delays before redelivery after a handler threw: the n-th failure waits the n-th
        /// delay (the last one repeats).
        public var retryDelays: [Duration] = [.seconds(1), .seconds(5), .seconds(30)]
        /// How many deliveries the server lets a consumer hold unacknowledged.
        public var maxAckPending = 20_000
        /// How many messages one fetch asks for.
        public var fetchBatch = 512
        /// How many messages this process holds at most (fetched, not yet settled).
        public var maxHeld = 2_048
        /// How long one fetch waits on the server for messages.
        public var fetchExpiry: Duration = .seconds(1)
        /// How long a publish waits for the server's ack before it is retried.
        public var publishTimeout: Duration = .seconds(5)
        /// How often a publish is sent in all (with the same `Nats-Msg-Id`) before it is reported.
        public var publishAttempts = 4
        /// How long a broadcast consumer outlives its process on the server.
        public var broadcastInactiveThreshold: Duration = .seconds(60)

        /// The defaults.
        public init() {}
    }

    /// The subject prefix: events travel on `<prefix>.<event name>`.
    public var prefix = "eds"
    /// The stream's name.
    public var streamName = "EDS"
    /// File (default) or memory storage.
    public var storage = JetStreamStreamConfiguration.Storage.file
    /// The duplicate window of the stream.
    public var duplicateWindow: Duration = .seconds(120)
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
            duplicateWindow: NATSJetStreamTransport.nanoseconds(duplicateWindow))
    }

    /// `<prefix>.<name>`.
    public func subject(for name: String) -> String { "\(prefix).\(name)" }

    /// `<prefix>.deadletter.<name>`.
    public func deadLetterSubject(for name: String) -> String { "\(prefix).deadletter.\(name)" }
}
