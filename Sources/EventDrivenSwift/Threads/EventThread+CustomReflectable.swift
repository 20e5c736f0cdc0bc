// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A thread's mirror shows its class, bus and pending work rather than its stored properties,
/// which hold atomics that trap when copied by reflection (Swift 6.3). ``UIEventThread`` and
/// your subclasses inherit it.
extension EventThread: CustomReflectable, CustomStringConvertible {
    /// The class, the bus's label, the pending deliveries, and whether the thread was cancelled.
    public var description: String {
        "\(type(of: self))(bus: \"\(bus.label)\", pending: \(pendingEventCount)\(isCancelled ? ", cancelled" : ""))"
    }

    /// The bus's label, the pending deliveries, whether the thread was cancelled, and how many
    /// observers it has.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "bus": bus.label, "pendingEventCount": pendingEventCount, "isCancelled": isCancelled,
                "observers": observers.count,
            ],
            displayStyle: .class)
    }
}
