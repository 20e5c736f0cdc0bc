// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// SwiftEventBus's `NoEvent`, a marker for ``EventConsumer/willConsume`` and
/// ``EventConsumer/excludeList``, with the meaning SwiftEventBus's own tests give it:
///
/// - In `willConsume`, the consumer consumes nothing, whatever else either list holds
///   (`[AllEvents.self, NoEvent.self]` consumes nothing).
/// - In `excludeList`, the consumer consumes every event, whatever else either list holds
///   (`willConsume: [A.self]`, `excludeList: [NoEvent.self, B.self]` consumes `A`, `B` and every
///   other type). As with ``AllEvents``, that leaves out the ``DidConsumeEvent`` notices unless
///   `willConsume` names `DidConsumeEvent.self`.
///
/// It has no values and is never dispatched. Native code says "nothing" with an empty
/// `willConsume` list and "everything" with `[AllEvents.self]`.
public enum NoEvent: Eventable {}
