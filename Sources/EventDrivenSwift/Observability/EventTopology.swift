// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Who sends what to whom: producers, event types and receivers, with the number of events seen
/// along each edge. Render it with ``mermaid`` or ``dot``.
///
/// A producer is the receiver whose handler dispatched (an EventThread, the listener thread…)
/// or else the `#fileID:line` of the dispatch; a receiver is a listener's owner type, an
/// EventThread's class, or the context a handler runs on (`pool`, `stream`, `task`…).
public struct EventTopology: Sendable, Equatable {
    /// One edge: producer → event type, or event type → receiver.
    public struct Link: Sendable, Hashable, Comparable {
        /// Where the edge starts.
        public let from: String
        /// Where it ends.
        public let to: String

        /// Creates an edge.
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }

        /// Ordered by `from`, then `to`.
        public static func < (lhs: Link, rhs: Link) -> Bool {
            (lhs.from, lhs.to) < (rhs.from, rhs.to)
        }
    }

    /// How many events each producer dispatched, per event type.
    public let publishes: [Link: Int]
    /// How many deliveries each receiver got, per event type; a registered receiver that got
    /// none has a count of 0.
    public let deliveries: [Link: Int]
    /// Event types dispatched while no one subscribed to them, with how often.
    public let unreceivedEventTypes: [String: Int]

    /// Every producer, sorted.
    public var producers: [String] { Set(publishes.keys.map(\.from)).sorted() }
    /// Every event type, sorted.
    public var eventTypes: [String] {
        Set(publishes.keys.map(\.to) + deliveries.keys.map(\.from) + unreceivedEventTypes.keys).sorted()
    }
    /// Every receiver, sorted.
    public var receivers: [String] { Set(deliveries.keys.map(\.to)).sorted() }
    /// Receivers that are registered but never got an event, sorted.
    public var idleReceivers: [String] {
        let busy = Set(deliveries.filter { $0.value > 0 }.map(\.key.to))
        return receivers.filter { !busy.contains($0) }
    }

    /// Creates a topology from its edges.
    public init(publishes: [Link: Int], deliveries: [Link: Int], unreceivedEventTypes: [String: Int]) {
        self.publishes = publishes
        self.deliveries = deliveries
        self.unreceivedEventTypes = unreceivedEventTypes
    }

    init(counts: _TopologyCounts, registered: [(eventType: String, receiver: String)]) {
        var deliveries = counts.deliveries
        for (eventType, receiver) in registered {
            deliveries[Link(from: eventType, to: receiver), default: 0] += 0
        }
        self.init(publishes: counts.publishes, deliveries: deliveries, unreceivedEventTypes: counts.unreceived)
    }
}
