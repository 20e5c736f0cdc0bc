// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A pool's mirror shows its threads and their work rather than its machinery, which holds
/// atomics that trap when copied by reflection (Swift 6.3).
extension EventPool: CustomReflectable, CustomStringConvertible {
    /// The thread class, the bus's label, the thread count, pending and handled events.
    public var description: String {
        let metrics = metrics
        return "EventPool<\(T.self)>(bus: \"\(bus.label)\", threads: \(metrics.threadCount), "
            + "pending: \(metrics.pendingEvents), handled: \(metrics.handledEvents)\(isStopped ? ", stopped" : ""))"
    }

    /// The bus's label, the thread count, whether the pool stopped, and its ``metrics``.
    public var customMirror: Mirror {
        let metrics = metrics
        return Mirror(
            self,
            children: [
                "bus": bus.label, "threadCount": metrics.threadCount, "isStopped": isStopped, "metrics": metrics,
            ],
            displayStyle: .class)
    }
}
