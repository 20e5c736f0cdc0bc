// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// SwiftEventBus's `NoEvent`: a marker for ``EventConsumer/willConsume`` and
/// ``EventConsumer/excludeList`` that stands for no type at all, so a list can say "nothing"
/// explicitly. It has no values and is never dispatched; listing it changes nothing.
///
/// The native form is an empty list (`[]`).
public enum NoEvent: Eventable {}
