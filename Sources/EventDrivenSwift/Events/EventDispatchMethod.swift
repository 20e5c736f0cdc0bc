// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Whether an event was queued (first in, first out) or stacked (last in, first out).
public enum EventDispatchMethod: Int, CaseIterable, Sendable {
    /// Handled after stacked events, oldest first within a priority.
    case queue = 0
    /// Handled before queued events, newest first within a priority.
    case stack = 1
}
