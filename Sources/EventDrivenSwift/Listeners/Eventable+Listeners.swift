// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension Eventable {
    /// Registers `callback` for events of this type, as `TemperatureEvent.addListener(self, onTemperature)`.
    ///
    /// - Parameters:
    ///   - requester: The owner, held weakly: once it is freed the listener is removed. `nil`
    ///     registers nothing and is reported (see ``EventDrivenError/Code/nilOwner``).
    ///   - callback: Called with the event, its priority and its dispatch time. A method bound
    ///     to the owner keeps the owner alive; see the unapplied-method overload.
    ///   - executeOn: Where the callback runs; by default the registering serial context. A
    ///     callback isolated to an actor (a bound method of a `@MainActor` view model) runs on
    ///     that actor whatever `executeOn` says, as an unapplied method does; a closure written
    ///     here is `@Sendable` and runs where `executeOn` says.
    ///   - interestedIn: Which events the listener wants; by default all.
    ///   - maximumAge: For `.youngerThan`, the largest age in nanoseconds; 0 means no limit.
    ///   - customFilter: For `.custom`, decides per event.
    ///   - isolation: The caller's isolation, which `.requesterThread` follows; leave the default.
    ///   - bus: The bus to listen on; by default ``EventCentral/shared``.
    /// - Returns: A handle whose `cancel()` stops further deliveries.
    @discardableResult
    @inlinable
    @_disfavoredOverload  // without `executeOn`, a call means the form that keeps the closure's isolation
    public static func addListener(
        _ requester: AnyObject?,
        _ callback: @escaping IsolatedEventCallback<Self>,
        executeOn: DeliveryContext = .requesterThread,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<Self>? = nil,
        on bus: EventBus = EventCentral.shared,
        isolation: (any Actor)? = #isolation
    ) -> EventListenerHandle {
        bus._addListener(
            Self.self, owner: requester, executeOn: executeOn, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter, isolation: isolation, callback)
    }

    /// Registers an unapplied method of `owner`, as `TemperatureEvent.addListener(self, Owner.onTemperature)`.
    ///
    /// The method is called with the weakly held owner, so the listener never keeps its owner
    /// alive; once the owner is freed the listener is removed. A method isolated to an actor (that
    /// of a `@MainActor` class) runs on that actor whatever `executeOn` says; see
    /// ``EventBus/addListener(_:_:owner:executeOn:interestedIn:maximumAge:customFilter:isolation:)``.
    @discardableResult
    @inlinable
    public static func addListener<Owner: AnyObject>(
        _ owner: Owner,
        _ method: @escaping @Sendable (Owner) -> IsolatedEventCallback<Self>,
        executeOn: DeliveryContext = .requesterThread,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<Self>? = nil,
        on bus: EventBus = EventCentral.shared,
        isolation: (any Actor)? = #isolation
    ) -> EventListenerHandle {
        bus.addListener(
            Self.self, method, owner: owner, executeOn: executeOn, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter, isolation: isolation)
    }
}
