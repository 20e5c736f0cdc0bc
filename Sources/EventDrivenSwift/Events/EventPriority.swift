// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// How urgently a receiver handles an event relative to the others it has pending.
public enum EventPriority: Int, CaseIterable, Comparable, Sendable {
    /// Handled first.
    case highest = 0
    /// Handled second.
    case high = 1
    /// Handled third; the default.
    case normal = 2
    /// Handled fourth.
    case low = 3
    /// Handled last.
    case lowest = 4

    /// `true` when `lhs` is handled after `rhs`; `.lowest < .highest`.
    public static func < (lhs: EventPriority, rhs: EventPriority) -> Bool {
        lhs.rawValue > rhs.rawValue
    }
}
