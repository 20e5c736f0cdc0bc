// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The balancer's counter is an atomic, which traps when copied by reflection (Swift 6.3).
extension EventPoolRoundRobinBalancer: CustomReflectable, CustomStringConvertible {
    /// The number of events balanced so far.
    public var description: String { "EventPoolRoundRobinBalancer(balanced: \(counter.current))" }

    /// The number of events balanced so far.
    public var customMirror: Mirror {
        Mirror(self, children: ["balanced": counter.current], displayStyle: .struct)
    }
}
