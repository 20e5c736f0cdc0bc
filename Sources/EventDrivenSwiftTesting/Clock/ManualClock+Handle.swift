// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Synchronization

extension ManualClock {
    /// A dispatch scheduled on a ``ManualClock``: it fires inside ``ManualClock/advance(by:)``
    /// once the clock reaches ``dueTime``, unless cancelled first.
    public final class Handle: Sendable, Hashable {
        /// When the event is due, on the manual clock.
        public let dueTime: DispatchTime
        private let state = Atomic<UInt8>(Phase.pending.rawValue)

        private enum Phase: UInt8 {
            case pending
            case fired
            case cancelled
        }

        init(dueTime: DispatchTime) {
            self.dueTime = dueTime
        }

        /// Cancels the dispatch.
        /// - Returns: `true` if the event had not been dispatched yet and now never will be.
        @discardableResult
        public func cancel() -> Bool {
            transition(to: .cancelled)
        }

        /// `true` once ``cancel()`` has succeeded.
        public var isCancelled: Bool { state.load(ordering: .acquiring) == Phase.cancelled.rawValue }

        /// `true` once the event has been dispatched.
        public var hasFired: Bool { state.load(ordering: .acquiring) == Phase.fired.rawValue }

        /// Moves from pending to fired; `false` if it was cancelled first.
        func fire() -> Bool {
            transition(to: .fired)
        }

        private func transition(to next: Phase) -> Bool {
            state.compareExchange(
                expected: Phase.pending.rawValue, desired: next.rawValue, ordering: .acquiringAndReleasing
            ).exchanged
        }

        /// Two handles are equal when they are the same handle.
        public static func == (lhs: Handle, rhs: Handle) -> Bool { lhs === rhs }
        /// Hashes the handle by identity.
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }
}
