// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Whether a bridge takes publishes, read on every export without a lock: not before
/// ``NATSBridge/run()`` was called (unless the transport's client was connected otherwise), and
/// not once it has ended.
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

    /// Whether a publish is refused (``NATSBridgeError/notRunning``): the bridge has ended, or
    /// was never run and `client`, when there is one, was never connected either. (A transport
    /// of another kind is left to fail by itself before ``NATSBridge/run()``.)
    func refuses(_ client: NATSClient?) -> Bool {
        switch Phase(rawValue: phase.load(ordering: .acquiring)) {
        case .open: false
        case .closed: true
        case .idle, nil: client?.isIdle ?? false
        }
    }
}
