// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A marker for ``EventConsumer/willConsume`` and ``EventConsumer/excludeList`` that stands
/// for every event type.
///
/// The catch-all covers every event except ``DidConsumeEvent``, so that a consumer that logs
/// everything does not also receive a notice of its own consumption; list
/// `DidConsumeEvent.self` explicitly to get the notices.
///
/// It has no values and is never dispatched.
public enum AllEvents: Eventable {}
