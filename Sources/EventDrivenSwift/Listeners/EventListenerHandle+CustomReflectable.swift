// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A handle holds its subscription, whose state is atomic and traps when copied by
/// reflection (Swift 6.3).
extension EventListenerHandle: CustomReflectable, CustomStringConvertible {
    /// Whether the listener is active, or why registering it failed.
    public var description: String {
        if let registrationError { return "EventListenerHandle(failed: \(registrationError))" }
        return "EventListenerHandle(\(isActive ? "active" : "inactive"))"
    }

    /// The token, whether the listener is active, and the registration error, if any.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "token": token, "isActive": isActive, "registrationError": registrationError as Any,
            ],
            displayStyle: .class)
    }
}
