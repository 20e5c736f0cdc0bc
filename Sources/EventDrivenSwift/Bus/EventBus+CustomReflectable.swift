// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A bus's mirror shows its label, subscriptions and statistics: reflecting its stored
/// properties would reach atomics, which trap when copied by reflection (Swift 6.3), so a
/// failing `#expect(bus…)` or a `dump(bus)` would end the process.
extension EventBus: CustomReflectable, CustomStringConvertible {
    /// The label, the number of subscriptions, and whether the bus has shut down.
    public var description: String {
        "EventBus(\"\(label)\", subscriptions: \(subscriptionCount)\(isShutDown ? ", shut down" : ""))"
    }

    /// The label, the number of subscriptions, whether the bus has shut down, and its statistics.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "label": label, "subscriptions": subscriptionCount, "isShutDown": isShutDown,
                "statistics": statistics,
            ],
            displayStyle: .class)
    }

    private var subscriptionCount: Int { registry.withLock { $0.allSubscriptions.count } }
}
