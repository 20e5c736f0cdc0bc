// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventBus {
    /// Who talks to whom on this bus: what the first ``EventFlowRecorder`` added to it saw on
    /// this bus (a recorder added to other buses too keeps theirs apart), or, with none, the
    /// registered receivers and their event types without counts.
    public func topology() -> EventTopology {
        if let recorder = interceptors.lazy.compactMap({ $0 as? EventFlowRecorder }).first {
            return recorder.topology(of: self)
        }
        return EventTopology(counts: _TopologyCounts(), registered: registeredReceivers)
    }

    /// Every registered handler's event type and receiver.
    var registeredReceivers: [(eventType: String, receiver: String)] {
        registry.withLock { $0.allSubscriptions }.map { ($0.eventTypeName, $0.receiver.description) }
    }
}
