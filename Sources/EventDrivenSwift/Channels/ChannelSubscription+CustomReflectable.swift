/// The subscription's state is atomic, which traps when copied by reflection (Swift 6.3).
extension ChannelSubscription: CustomReflectable, CustomStringConvertible {
    /// Whether the subscription is active.
    public var description: String { "ChannelSubscription(\(isActive ? "active" : "ended"))" }

    /// Whether the subscription is active.
    public var customMirror: Mirror {
        Mirror(self, children: ["isActive": isActive], displayStyle: .struct)
    }
}
