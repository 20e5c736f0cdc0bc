extension EventBus {
    /// Registers a handler that may throw, for events of type `E`.
    ///
    /// Behaves like ``listen(_:owner:executeOn:interestedIn:maximumAge:customFilter:isolation:_:)-(_,_,_,_,_,_,_,(E,EventMetadata)->Void)``.
    /// An error thrown by `callback` does not stop deliveries to other listeners or later
    /// deliveries to this one: it is counted in ``EventBusStatistics/failed``, logged, and passed
    /// to the error handler (``setErrorHandler(_:)``) as
    /// ``EventDrivenError/handlerFailed(eventType:error:)``.
    @discardableResult
    public func listen<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject? = nil,
        executeOn: ExecuteEventOn = .requesterThread,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<E>? = nil,
        isolation: (any Actor)? = #isolation,
        _ callback: @escaping @Sendable (E, EventMetadata) throws -> Void
    ) -> EventListenerHandle {
        let isolate = _ErrorIsolation(bus: self, eventType: String(reflecting: type))
        return listen(
            type, owner: owner, executeOn: executeOn, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter, isolation: isolation
        ) { event, metadata in
            isolate.run { try callback(event, metadata) }
        }
    }

    /// Counts, logs and reports an error a handler threw.
    func reportHandlerFailure(_ error: any Error, eventType: String) {
        report(.handlerFailed(eventType: eventType, error: String(describing: error)))
    }
}

extension EventThread {
    /// Registers a callback that may throw, for events of type `TEvent`.
    ///
    /// An error does not stop the thread or later deliveries: it is counted in
    /// ``EventBusStatistics/failed``, logged, and passed to the bus's error handler as
    /// ``EventDrivenError/handlerFailed(eventType:error:)``.
    @discardableResult
    public func addEventCallback<TEvent: Eventable>(
        _ type: TEvent.Type, _ callback: @escaping @Sendable (TEvent, EventMetadata) throws -> Void
    ) -> EventListenerHandle {
        let isolate = _ErrorIsolation(bus: bus, eventType: String(reflecting: type))
        return addEventCallback(type) { (event: TEvent, metadata: EventMetadata) in
            isolate.run { try callback(event, metadata) }
        }
    }
}

/// Runs a throwing handler and turns its error into a report, so that one failing handler
/// never affects another.
struct _ErrorIsolation: Sendable {
    private weak let bus: EventBus?
    private let counters: _BusCounters
    private let eventType: String

    init(bus: EventBus, eventType: String) {
        self.bus = bus
        self.counters = bus.counters
        self.eventType = eventType
    }

    @inline(__always)
    func run(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            counters.failed.add(1, ordering: .relaxed)
            bus?.reportHandlerFailure(error, eventType: eventType)
        }
    }
}
