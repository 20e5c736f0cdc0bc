// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// The event that carries one value of a state to its subscribers. Its version (the value's
/// place among the values of its state, 1 for the first) travels as the envelope's sequence
/// number (``_EventEnvelope/sequence``), which the state's cell sets under its lock; the
/// envelope keeps its low 48 bits, so a subscriber's gate (``_StateGate``) orders the changes of
/// one state exactly while it has had fewer than 2⁴⁸ of them.
///
/// Visible to inlinable code, so that the setter's module boxes its own value type.
@usableFromInline
struct _StateChange<Value: Equatable & Sendable>: Eventable, _StateChangeType {
    @usableFromInline let value: Value

    @inlinable
    init(value: Value) { self.value = value }

    static var valueType: Any.Type { Value.self }
}

/// A `_StateChange` of any value type, for what names the value's type (errors).
protocol _StateChangeType {
    static var valueType: Any.Type { get }
}

/// The value type of `change` (a `_StateChange`), for errors.
func _stateValueTypeName(of change: any Eventable) -> String {
    (type(of: change) as? any _StateChangeType.Type).map { String(describing: $0.valueType) }
        ?? String(describing: type(of: change))
}

/// What a state subscriber has been handed: it refuses a change older than one it got.
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
