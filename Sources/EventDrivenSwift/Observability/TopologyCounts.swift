// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The edges an ``EventFlowRecorder`` has seen, counted since it began: bounded by the number of
/// distinct producers, event types and receivers, not by the number of events.
struct _TopologyCounts {
    /// Producer → event type.
    var publishes: [EventTopology.Link: Int] = [:]
    /// Event type → receiver.
    var deliveries: [EventTopology.Link: Int] = [:]
    /// Event types dispatched with no receiver, and how often.
    var unreceived: [String: Int] = [:]

    /// Adds `other`'s counts to these.
    mutating func merge(_ other: _TopologyCounts) {
        publishes.merge(other.publishes, uniquingKeysWith: +)
        deliveries.merge(other.deliveries, uniquingKeysWith: +)
        unreceived.merge(other.unreceived, uniquingKeysWith: +)
    }

    mutating func record(_ record: EventFlowRecord) {
        switch record {
        case .dispatch(let dispatch):
            publishes[EventTopology.Link(from: dispatch.source.description, to: dispatch.eventType), default: 0] += 1
        case .delivery(let delivery):
            guard let receiver = delivery.receiver else { return }
            deliveries[EventTopology.Link(from: delivery.eventType, to: receiver.description), default: 0] += 1
        case .unreceived(let dispatch):
            unreceived[dispatch.eventType, default: 0] += 1
        }
    }
}
