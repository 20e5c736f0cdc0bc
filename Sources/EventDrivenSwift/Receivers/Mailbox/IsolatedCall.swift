// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// How a serial mailbox whose drains run isolated to an actor calls a handler isolated to that
/// actor: the functions below are the mailbox's side of every listener, channel or state
/// subscriber, and `customFilter`, given as an `@isolated(any)` function.
///
/// Swift calls an `@isolated(any)` function only with `await`, because the call may have to hop
/// to its isolation first. Here the hop is made already, by the mailbox: a handler isolated to
/// an actor is registered on that actor's serial mailbox (`executeOn` follows the handler's
/// isolation; a filter on another actor's listener is refused at registration), and the mailbox's
/// executor (`_MailboxExecutor.mainQueue`, `.actor`) runs every delivery isolated to it;
/// `preconditionIsolated()` checks it before each call. (A handler without isolation is a
/// plain `@Sendable` function, called wherever it is delivered.) What is left is the call itself. An
/// `@isolated(any)` function value is an ordinary thick function (same size, same calling
/// convention) whose context also carries its isolation (SE-0431), so it is called as the
/// `@Sendable` function it is. `IsolatedMethodTests` runs this with unapplied methods of
/// nonisolated, main-actor and global-actor classes, in debug and release builds.
@inlinable
func _callOnItsIsolation<E: Eventable>(
    _ callback: @escaping IsolatedEventCallback<E>, _ event: E, _ metadata: EventMetadata
) {
    callback.isolation?.preconditionIsolated("a listener's method ran away from its actor")
    // Valid: same layout and convention; the isolation was checked on the line above.
    let call = unsafeBitCast(callback, to: TypedEventCallback<E>.self)
    call(event, metadata.priority, metadata.dispatchTime)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a callback that takes the event's metadata.
@inlinable
func _callOnItsIsolation<E: Eventable>(
    _ callback: @escaping @Sendable @isolated(any) (E, EventMetadata) -> Void, _ event: E, _ metadata: EventMetadata
) {
    callback.isolation?.preconditionIsolated("a listener ran away from its actor")
    // Valid: same layout and convention; the isolation was checked on the line above.
    let call = unsafeBitCast(callback, to: (@Sendable (E, EventMetadata) -> Void).self)
    call(event, metadata)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a callback that may throw.
func _callOnItsIsolation<E: Eventable>(
    _ callback: @escaping @Sendable @isolated(any) (E, EventMetadata) throws -> Void, _ event: E,
    _ metadata: EventMetadata
) throws {
    callback.isolation?.preconditionIsolated("a listener ran away from its actor")
    // Valid: same layout and convention; the isolation was checked on the line above.
    let call = unsafeBitCast(callback, to: (@Sendable (E, EventMetadata) throws -> Void).self)
    try call(event, metadata)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a channel's or a state's handler.
func _callOnItsIsolation<Value>(_ handler: @escaping @Sendable @isolated(any) (Value) -> Void, _ value: Value) {
    handler.isolation?.preconditionIsolated("a subscriber ran away from its actor")
    // Valid: same layout and convention; the isolation was checked on the line above.
    let call = unsafeBitCast(handler, to: (@Sendable (Value) -> Void).self)
    call(value)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a callback that takes the listener's owner first.
@inlinable
func _callOnItsIsolation<Owner: AnyObject & Sendable, E: Eventable>(
    _ callback: @escaping @Sendable @isolated(any) (Owner, E) -> Void, _ owner: Owner, _ event: E
) {
    callback.isolation?.preconditionIsolated("a listener ran away from its actor")
    // Valid: same layout and convention; the isolation was checked on the line above.
    let call = unsafeBitCast(callback, to: (@Sendable (Owner, E) -> Void).self)
    call(owner, event)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a callback that takes the listener's owner first and the
/// event's metadata last.
@inlinable
func _callOnItsIsolation<Owner: AnyObject & Sendable, E: Eventable>(
    _ callback: @escaping @Sendable @isolated(any) (Owner, E, EventMetadata) -> Void, _ owner: Owner, _ event: E,
    _ metadata: EventMetadata
) {
    callback.isolation?.preconditionIsolated("a listener ran away from its actor")
    // Valid: same layout and convention; the isolation was checked on the line above.
    let call = unsafeBitCast(callback, to: (@Sendable (Owner, E, EventMetadata) -> Void).self)
    call(owner, event, metadata)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a callback that takes the listener's owner first and may throw.
func _callOnItsIsolation<Owner: AnyObject & Sendable, E: Eventable>(
    _ callback: @escaping @Sendable @isolated(any) (Owner, E) throws -> Void, _ owner: Owner, _ event: E
) throws {
    callback.isolation?.preconditionIsolated("a listener ran away from its actor")
    // Valid: same layout and convention; the isolation was checked on the line above.
    let call = unsafeBitCast(callback, to: (@Sendable (Owner, E) throws -> Void).self)
    try call(owner, event)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a listener's `customFilter`, which the registration let
/// through only for a listener that runs on the filter's actor, if it has one.
func _callOnItsIsolation<E: Eventable>(
    _ filter: @escaping TypedEventFilterCallback<E>, _ event: E, _ metadata: EventMetadata
) -> Bool {
    filter.isolation?.preconditionIsolated("a listener's customFilter ran away from its actor")
    // Valid: same layout and convention; the isolation was checked on the line above.
    let call = unsafeBitCast(filter, to: (@Sendable (E, EventPriority, DispatchTime) -> Bool).self)
    return call(event, metadata.priority, metadata.dispatchTime)
}
