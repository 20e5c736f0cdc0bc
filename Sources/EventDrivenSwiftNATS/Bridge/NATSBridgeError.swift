// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// What the bridge reports: at registration, at start, and for events it could not carry.
public enum NATSBridgeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The event type was not registered with a name and version.
    case unregisteredEventType(String)
    /// Two types, or two names, were registered for one another.
    case duplicateRegistration(String)
    /// A name that cannot be part of a subject (empty, whitespace, `*`, `>`, leading or trailing dot).
    case invalidEventName(String)
    /// The broker already has a stream or consumer of that name, configured differently.
    case configurationMismatch(String)
    /// A publish was not acknowledged after every attempt.
    case publishFailed(messageID: String, event: String, reason: String)
    /// A message was dead-lettered: undecodable, of an unknown event, or out of attempts.
    case deadLettered(messageID: String, event: String, reason: String)
    /// The bridge is not running (not started yet, or stopped): thrown by a second ``NATSBridge/run()``,
    /// and by a publish on a bridge whose ``NATSBridge/run()`` has ended.
    case notRunning
    /// A configuration value the bridge cannot work with (see
    /// ``NATSBridgeConfiguration/validate()``), named with the reason: thrown at once, before
    /// anything is sent.
    case invalidConfiguration(String)

    /// The error in words.
    public var description: String {
        switch self {
        case .unregisteredEventType(let type):
            "event type \(type) is not registered with the bridge: register it with a name and version first"
        case .duplicateRegistration(let detail): "duplicate registration: \(detail)"
        case .invalidEventName(let name): "'\(name)' cannot be an event name (it must be a valid subject part)"
        case .configurationMismatch(let detail): "broker configuration mismatch: \(detail)"
        case .publishFailed(let id, let event, let reason): "publish of \(event) \(id) failed: \(reason)"
        case .deadLettered(let id, let event, let reason): "\(event) \(id) dead-lettered: \(reason)"
        case .notRunning: "the bridge is not running"
        case .invalidConfiguration(let detail): "invalid bridge configuration: \(detail)"
        }
    }
}
