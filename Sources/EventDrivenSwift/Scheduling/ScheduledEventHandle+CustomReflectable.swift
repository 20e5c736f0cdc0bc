// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A handle's state is an atomic, which traps when copied by reflection (Swift 6.3).
extension ScheduledEventHandle: CustomReflectable, CustomStringConvertible {
    /// The due time and whether the dispatch is pending, fired or cancelled.
    public var description: String {
        "ScheduledEventHandle(due: \(dueTime.uptimeNanoseconds) ns, \(stateName))"
    }

    /// The due time, whether the dispatch fired, and whether it was cancelled.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["dueTime": dueTime, "hasFired": hasFired, "isCancelled": isCancelled],
            displayStyle: .class)
    }

    private var stateName: String { hasFired ? "fired" : isCancelled ? "cancelled" : "pending" }
}
