// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// Calls `callback`, which the listener's mailbox runs on the callback's own isolation (or
/// anywhere, when it has none), synchronously.
///
/// Swift calls an `@isolated(any)` function only with `await`, because the call may have to hop
/// to its isolation first. Here the hop is made already: a listener registered with a method
/// isolated to an actor is given that actor's serial mailbox (`executeOn` follows the method's
/// isolation), which runs its deliveries isolated to it; `preconditionIsolated()` checks it.
/// What is left is the call itself. An `@isolated(any)` function value is an ordinary thick
/// function (same size, same calling convention) whose context also carries its isolation
/// (SE-0431), so it is called as the `@Sendable` function it is. `IsolatedMethodTests` runs this
/// with unapplied methods of nonisolated, main-actor and global-actor classes, in debug and
/// release builds.
@inlinable
func _callOnItsIsolation<E: Eventable>(
    _ callback: @escaping IsolatedEventCallback<E>, _ event: E, _ metadata: EventMetadata
) {
    callback.isolation?.preconditionIsolated("a listener's method ran away from its actor")
    let call = unsafeBitCast(callback, to: TypedEventCallback<E>.self)
    call(event, metadata.priority, metadata.dispatchTime)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a callback that takes the event's metadata.
@inlinable
func _callOnItsIsolation<E: Eventable>(
    _ callback: @escaping @Sendable @isolated(any) (E, EventMetadata) -> Void, _ event: E, _ metadata: EventMetadata
) {
    callback.isolation?.preconditionIsolated("a listener ran away from its actor")
    let call = unsafeBitCast(callback, to: (@Sendable (E, EventMetadata) -> Void).self)
    call(event, metadata)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a callback that may throw.
func _callOnItsIsolation<E: Eventable>(
    _ callback: @escaping @Sendable @isolated(any) (E, EventMetadata) throws -> Void, _ event: E,
    _ metadata: EventMetadata
) throws {
    callback.isolation?.preconditionIsolated("a listener ran away from its actor")
    let call = unsafeBitCast(callback, to: (@Sendable (E, EventMetadata) throws -> Void).self)
    try call(event, metadata)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a channel's or a state's handler.
func _callOnItsIsolation<Value>(_ handler: @escaping @Sendable @isolated(any) (Value) -> Void, _ value: Value) {
    handler.isolation?.preconditionIsolated("a subscriber ran away from its actor")
    let call = unsafeBitCast(handler, to: (@Sendable (Value) -> Void).self)
    call(value)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a callback that takes the listener's owner first.
@inlinable
func _callOnItsIsolation<Owner: AnyObject & Sendable, E: Eventable>(
    _ callback: @escaping @Sendable @isolated(any) (Owner, E) -> Void, _ owner: Owner, _ event: E
) {
    callback.isolation?.preconditionIsolated("a listener ran away from its actor")
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
    let call = unsafeBitCast(callback, to: (@Sendable (Owner, E, EventMetadata) -> Void).self)
    call(owner, event, metadata)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a callback that takes the listener's owner first and may throw.
func _callOnItsIsolation<Owner: AnyObject & Sendable, E: Eventable>(
    _ callback: @escaping @Sendable @isolated(any) (Owner, E) throws -> Void, _ owner: Owner, _ event: E
) throws {
    callback.isolation?.preconditionIsolated("a listener ran away from its actor")
    let call = unsafeBitCast(callback, to: (@Sendable (Owner, E) throws -> Void).self)
    try call(owner, event)
}

/// ``_callOnItsIsolation(_:_:_:)`` for a listener's `customFilter`, which the registration let
/// through only for a listener that runs on the filter's actor, if it has one.
func _callOnItsIsolation<E: Eventable>(
    _ filter: @escaping TypedEventFilterCallback<E>, _ event: E, _ metadata: EventMetadata
) -> Bool {
    filter.isolation?.preconditionIsolated("a listener's customFilter ran away from its actor")
    let call = unsafeBitCast(filter, to: (@Sendable (E, EventPriority, DispatchTime) -> Bool).self)
    return call(event, metadata.priority, metadata.dispatchTime)
}
