// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

extension EventBus {
    /// Registers `callback` for events of type `E`, to run where it was written: a closure
    /// written in `@MainActor` code (a SwiftUI view model) runs on the main actor, one written in
    /// an actor that uses the actor's state runs on that actor, and any other closure runs in
    /// the caller's serial context (``DeliveryContext/requesterThread``).
    ///
    /// ```swift
    /// let handle = bus.listen(Reading.self) { reading, metadata in
    ///     print(reading.celsius, metadata.priority)
    /// }
    /// ```
    ///
    /// The closure takes the isolation of the code around it, as `Task { }` does, so it may
    /// touch that code's state without annotations; events reach it one at a time, in order.
    /// To tie the listener to an object, pass it as `owner:` and take it as the closure's first
    /// argument (``listen(_:owner:interestedIn:isolation:_:)-5vrve``).
    /// To run a handler elsewhere (``DeliveryContext/listenerThread``, a task, a queue), pass
    /// `executeOn:`: that form takes a `@Sendable` closure, which a closure that touches
    /// main-actor state is not.
    @discardableResult
    @inlinable
    public func listen<E: Eventable>(
        _ type: E.Type,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<E>? = nil,
        isolation: (any Actor)? = #isolation,
        @_inheritActorContext _ callback: @escaping @Sendable @isolated(any) (E, EventMetadata) -> Void
    ) -> EventListenerHandle {
        listen(
            type, owner: nil, executeOn: .requesterThread, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter, isolation: callback.isolation ?? isolation
        ) { event, metadata in
            _callOnItsIsolation(callback, event, metadata)
        }
    }

    /// Registers `callback` for events of type `E` with the owner held weakly, to run where it
    /// was written (a `{ @MainActor event, priority, time in … }` closure or a bound method of a
    /// `@MainActor` type on the main actor): the body of 5.2's `Event.addListener(owner, callback)`
    /// and of the deprecated `bus.addListener(_:owner:_:)`.
    @usableFromInline
    func _addIsolatedListener<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject?,
        interestedIn: EventListenerInterest,
        maximumAge: Int64,
        customFilter: TypedEventFilterCallback<E>?,
        isolation: (any Actor)?,
        _ callback: @escaping IsolatedEventCallback<E>
    ) -> EventListenerHandle {
        let typeName = String(reflecting: type)
        guard let owner else { return failedRegistration(.nilOwner(eventType: typeName)) }
        return listen(
            type, owner: owner, executeOn: .requesterThread, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter, isolation: callback.isolation ?? isolation
        ) { event, metadata in
            _callOnItsIsolation(callback, event, metadata)
        }
    }
}

extension Eventable {
    /// Registers `callback` for events of this type, as `TemperatureEvent.addListener(self, onTemperature)`,
    /// to run where it was written (a `@MainActor` type's bound method on the main actor).
    ///
    /// The owner is held weakly; once it is freed the listener is removed. A bound method
    /// (`self.onEvent`) captures the owner strongly and keeps it alive until the handle's
    /// ``EventListenerHandle/cancel()``; pass the unapplied method (`Owner.onEvent`) to let it go.
    @discardableResult
    @inlinable
    public static func addListener(
        _ requester: AnyObject?,
        @_inheritActorContext _ callback: @escaping IsolatedEventCallback<Self>,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<Self>? = nil,
        on bus: EventBus = EventCentral.shared,
        isolation: (any Actor)? = #isolation
    ) -> EventListenerHandle {
        bus._addIsolatedListener(
            Self.self, owner: requester, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter, isolation: isolation, callback)
    }
}
