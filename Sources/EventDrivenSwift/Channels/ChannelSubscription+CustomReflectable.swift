// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The subscription's state is atomic, which traps when copied by reflection (Swift 6.3).
extension ChannelSubscription: CustomReflectable, CustomStringConvertible {
    /// Whether the subscription is active.
    public var description: String { "ChannelSubscription(\(isActive ? "active" : "ended"))" }

    /// Whether the subscription is active.
    public var customMirror: Mirror {
        Mirror(self, children: ["isActive": isActive], displayStyle: .struct)
    }
}
