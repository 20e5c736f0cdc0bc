// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// A state's value on its way to one subscriber, numbered so the subscriber can tell old
/// from new.
struct _StateChange<Value: Equatable & Sendable>: Eventable {
    let value: Value
    /// The value's place among the values of its state; 1 for the first.
    let version: UInt64
}

/// The newest version one subscriber has been handed.
///
/// Mailbox subscribers receive versions in order anyway; the gate keeps subscribers that run
/// on the sender's thread or in tasks from seeing a value twice or an older value after a
/// newer one.
final class _StateGate: Sendable {
    private let newest = Atomic<UInt64>(0)

    /// `true` if `version` is newer than every version admitted so far; it becomes the newest.
    func admit(_ version: UInt64) -> Bool {
        var current = newest.load(ordering: .acquiring)
        while version > current {
            let (exchanged, original) = newest.compareExchange(
                expected: current, desired: version, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }
}
