// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventBus {
    /// Registers `callback`, which takes the event, its priority and its dispatch time, for
    /// events of type `E`, with `owner` held weakly, to run where `executeOn` says (a callback
    /// isolated to an actor, on that actor): the bus's form of 5.2's
    /// `Event.addListener(owner, callback, executeOn: …)`.
    @available(
        *, deprecated,
        message: "use listen(_:owner:executeOn:) { event, metadata in … }, or an unapplied method"
    )
    @discardableResult
    @inlinable
    @_disfavoredOverload  // without `executeOn`, a call means the form that keeps the closure's isolation
    public func addListener<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject?,
        executeOn: DeliveryContext = .requesterThread,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<E>? = nil,
        isolation: (any Actor)? = #isolation,
        _ callback: @escaping IsolatedEventCallback<E>
    ) -> EventListenerHandle {
        _addListener(
            type, owner: owner, executeOn: executeOn, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter, isolation: isolation, callback)
    }

    /// Registers `callback`, which takes the event, its priority and its dispatch time, for
    /// events of type `E`, with `owner` held weakly, to run where it was written (a
    /// `{ @MainActor [weak self] event, _, _ in … }` closure on the main actor).
    @available(*, deprecated, message: "use listen(_:owner:) { owner, event in … }, which needs no [weak self]")
    @discardableResult
    @inlinable
    public func addListener<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject?,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<E>? = nil,
        isolation: (any Actor)? = #isolation,
        @_inheritActorContext _ callback: @escaping IsolatedEventCallback<E>
    ) -> EventListenerHandle {
        _addIsolatedListener(
            type, owner: owner, interestedIn: interestedIn, maximumAge: maximumAge, customFilter: customFilter,
            isolation: isolation, callback)
    }
}
