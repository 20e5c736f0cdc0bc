// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Whether a bridge takes publishes, read on every export without a lock: not once
/// ``NATSBridge/run()`` has ended. Before it is called, a publish waits for the connection
/// within the retry window, as one dispatched while a `ServiceGroup` starts its services does.
final class _PublishGate: Sendable {
    /// Where the bridge is.
    enum Phase: Int {
        /// ``NATSBridge/run()`` was not called.
        case idle
        /// ``NATSBridge/run()`` is starting, running, or stopping.
        case open
        /// ``NATSBridge/run()`` has ended (or failed to start).
        case closed
    }

    private let phase = Atomic<Int>(Phase.idle.rawValue)

    func set(_ phase: Phase) { self.phase.store(phase.rawValue, ordering: .releasing) }

    /// Whether a publish is refused (``NATSBridgeError/notRunning``): the bridge has ended.
    func refuses() -> Bool {
        phase.load(ordering: .acquiring) == Phase.closed.rawValue
    }
}
