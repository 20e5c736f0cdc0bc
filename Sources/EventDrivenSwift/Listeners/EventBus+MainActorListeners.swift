import Dispatch

extension EventBus {
    /// Registers a main-actor `callback` for events of type `E`: it runs on the main actor, one
    /// event at a time, in order, wherever the listener was registered from.
    ///
    /// This is the form a `@MainActor` owner's bound method (`self.onEvent` in a SwiftUI view
    /// model) or a `{ @MainActor event, priority, time in … }` closure takes; such a callback may
    /// touch the owner's main-actor state, so it never runs anywhere else. The owner is held
    /// weakly; once it is freed the listener is removed. The main queue must be running (an app,
    /// `dispatchMain()`, or an async `main`); a backlog that waits over a second is logged once.
    @discardableResult
    @inlinable
    public func addListener<E: Eventable, Owner: AnyObject>(
        _ type: E.Type,
        owner: Owner,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<E>? = nil,
        _ callback: @escaping @MainActor (E, EventPriority, DispatchTime) -> Void
    ) -> EventListenerHandle {
        listen(
            type, owner: owner, executeOn: .mainActor, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter
        ) { event, metadata in
            // A `.mainActor` listener's mailbox drains on the main queue.
            MainActor.assumeIsolated { callback(event, metadata.priority, metadata.dispatchTime) }
        }
    }
}

extension Eventable {
    /// Registers a main-actor `callback` for events of this type, as
    /// `TemperatureEvent.addListener(self, onTemperature)` from a `@MainActor` type; see
    /// ``EventBus/addListener(_:owner:interestedIn:maximumAge:customFilter:_:)-(_,Owner,_,_,_,_)``.
    @discardableResult
    @inlinable
    public static func addListener<Owner: AnyObject>(
        _ owner: Owner,
        _ callback: @escaping @MainActor (Self, EventPriority, DispatchTime) -> Void,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<Self>? = nil,
        on bus: EventBus = EventCentral.shared
    ) -> EventListenerHandle {
        bus.addListener(
            Self.self, owner: owner, interestedIn: interestedIn, maximumAge: maximumAge, customFilter: customFilter,
            callback)
    }
}
