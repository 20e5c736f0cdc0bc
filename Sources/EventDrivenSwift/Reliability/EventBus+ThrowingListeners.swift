// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventBus {
    /// Registers a handler that may throw, for events of type `E`.
    ///
    /// Behaves like ``listen(_:owner:executeOn:interestedIn:maximumAge:customFilter:isolation:_:)-(_,_,_,_,_,_,_,(E,EventMetadata)->Void)``.
    /// An error thrown by `callback` does not stop deliveries to other listeners or later
    /// deliveries to this one: the delivery is counted in ``EventBusStatistics/failed``, posted
    /// as a dead letter (``DeadLetter/Reason/failed``), logged, and passed to the error handler
    /// (``setErrorHandler(_:)``) as ``EventDrivenError/Code/handlerFailed``.
    @discardableResult
    @_disfavoredOverload  // without `executeOn`, a call means the form that keeps the closure's isolation
    public func listen<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject? = nil,
        executeOn: DeliveryContext = .requesterThread,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<E>? = nil,
        isolation: (any Actor)? = #isolation,
        _ callback: @escaping @Sendable (E, EventMetadata) throws -> Void
    ) -> EventListenerHandle {
        _listen(
            type, owner: owner, executeOn: executeOn, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter, isolation: isolation,
            handler: _ErasedHandler(throwing: callback, failures: _FailureReport(bus: self))
        )
    }

    /// Registers a handler that may throw, for events of type `E`, to run where it was written,
    /// as the non-throwing form without `executeOn` does (a closure written in `@MainActor` code
    /// runs on the main actor); errors are handled as for the form above.
    @discardableResult
    public func listen<E: Eventable>(
        _ type: E.Type,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<E>? = nil,
        isolation: (any Actor)? = #isolation,
        @_inheritActorContext _ callback: @escaping @Sendable @isolated(any) (E, EventMetadata) throws -> Void
    ) -> EventListenerHandle {
        _listen(
            type, owner: nil, executeOn: .requesterThread, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter, isolation: callback.isolation ?? isolation,
            handler: _ErasedHandler(
                throwing: { event, metadata in try _callOnItsIsolation(callback, event, metadata) },
                failures: _FailureReport(bus: self))
        )
    }
}

extension EventThread {
    /// Registers a callback that may throw, for events of type `TEvent`.
    ///
    /// An error does not stop the thread or later deliveries: the delivery is counted in
    /// ``EventBusStatistics/failed``, posted as a dead letter (``DeadLetter/Reason/failed``),
    /// logged, and passed to the bus's error handler as
    /// ``EventDrivenError/Code/handlerFailed``.
    @discardableResult
    public func addEventCallback<TEvent: Eventable>(
        _ type: TEvent.Type, _ callback: @escaping @Sendable (TEvent, EventMetadata) throws -> Void
    ) -> EventListenerHandle {
        _addEventCallback(type, _ErasedHandler(throwing: callback, failures: _FailureReport(bus: bus)))
    }
}

/// Where a handler's error goes: the bus's error handler and log, as
/// ``EventDrivenError/Code/handlerFailed``. Counting the failed
/// delivery is the receiver's part, with every other outcome.
@usableFromInline
struct _FailureReport: Sendable {
    private weak let bus: EventBus?

    @usableFromInline
    init(bus: EventBus) {
        self.bus = bus
    }

    func report(_ error: any Error, _ envelope: _EventEnvelope, receiver: String) {
        bus?.report(
            .handlerFailed(event: envelope.event, metadata: envelope.metadata, receiver: receiver, error: error))
    }
}
