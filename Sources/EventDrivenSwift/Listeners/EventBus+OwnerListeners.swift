// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventBus {
    /// Registers `callback` for events of type `E` on behalf of `owner`, which is held weakly and
    /// handed to the closure strongly while it runs; once the owner is freed the listener is
    /// removed and never called again.
    ///
    /// ```swift
    /// @MainActor @Observable final class Thermometer {
    ///     var celsius = 0.0
    ///     init(bus: EventBus) {
    ///         bus.listen(Reading.self, owner: self) { owner, reading in
    ///             owner.celsius = reading.celsius   // main-actor state, on the main actor
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// No `[weak self]`: the closure receives the owner, so it need not capture it (a closure
    /// that captures `self` strongly keeps the owner alive until the handle is cancelled). The
    /// closure keeps the isolation of the code it is written in, as with
    /// ``listen(_:interestedIn:maximumAge:customFilter:isolation:_:)-5yo9x``: written in `@MainActor`
    /// code it runs on the main actor, one event at a time, in order. The owner is `Sendable`
    /// (a `@MainActor` class, an immutable class), because the closure may run on another
    /// thread than the code that registered it. For an actor's state, use
    /// ``listen(_:on:_:)-(_,_,(A,E)->Void)``, whose handler is isolated to the actor.
    @discardableResult
    @inlinable
    public func listen<E: Eventable, Owner: AnyObject & Sendable>(
        _ type: E.Type,
        owner: Owner,
        interestedIn: EventListenerInterest = .all,
        isolation: (any Actor)? = #isolation,
        @_inheritActorContext _ callback: @escaping @Sendable @isolated(any) (Owner, E) -> Void
    ) -> EventListenerHandle {
        let weakOwner = _WeakReference(owner)
        return listen(
            type, owner: owner, executeOn: .requesterThread, interestedIn: interestedIn, maximumAge: 0,
            customFilter: nil, isolation: callback.isolation ?? isolation
        ) { event, _ in
            guard let owner = weakOwner.object else { return }
            _callOnItsIsolation(callback, owner, event)
        }
    }

    /// ``listen(_:owner:interestedIn:isolation:_:)-5vrve`` with the full
    /// ``EventMetadata`` of each event: `{ owner, event, metadata in … }`.
    @discardableResult
    @inlinable
    public func listen<E: Eventable, Owner: AnyObject & Sendable>(
        _ type: E.Type,
        owner: Owner,
        interestedIn: EventListenerInterest = .all,
        isolation: (any Actor)? = #isolation,
        @_inheritActorContext _ callback: @escaping @Sendable @isolated(any) (Owner, E, EventMetadata) -> Void
    ) -> EventListenerHandle {
        let weakOwner = _WeakReference(owner)
        return listen(
            type, owner: owner, executeOn: .requesterThread, interestedIn: interestedIn, maximumAge: 0,
            customFilter: nil, isolation: callback.isolation ?? isolation
        ) { event, metadata in
            guard let owner = weakOwner.object else { return }
            _callOnItsIsolation(callback, owner, event, metadata)
        }
    }

    /// ``listen(_:owner:interestedIn:isolation:_:)-5vrve`` with a
    /// closure that may throw: an error is handled as for
    /// ``listen(_:interestedIn:maximumAge:customFilter:isolation:_:)-8jlu6``
    /// (counted as failed, posted as a dead letter, logged, passed to the error handler) and
    /// does not stop later deliveries.
    @discardableResult
    public func listen<E: Eventable, Owner: AnyObject & Sendable>(
        _ type: E.Type,
        owner: Owner,
        interestedIn: EventListenerInterest = .all,
        isolation: (any Actor)? = #isolation,
        @_inheritActorContext _ callback: @escaping @Sendable @isolated(any) (Owner, E) throws -> Void
    ) -> EventListenerHandle {
        let weakOwner = _WeakReference(owner)
        return _listen(
            type, owner: owner, executeOn: .requesterThread, interestedIn: interestedIn, maximumAge: 0,
            customFilter: nil, isolation: callback.isolation ?? isolation,
            handler: _ErasedHandler(
                throwing: { (event: E, _: EventMetadata) in
                    guard let owner = weakOwner.object else { return }
                    try _callOnItsIsolation(callback, owner, event)
                },
                failures: _FailureReport(bus: self))
        )
    }
}
