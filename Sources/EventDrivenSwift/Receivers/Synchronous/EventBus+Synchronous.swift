import Dispatch

extension EventBus {
    /// Dispatches `event` and returns once every synchronous receiver has handled it: the
    /// bus's consumers (``EventConsumer``), then the listeners registered with
    /// ``ExecuteEventOn/synchronous``, each in registration order, on the calling thread.
    ///
    /// Every other listener gets the event queued with `priority`, as with ``queue(_:priority:file:line:)``.
    /// A receiver may dispatch from inside its handler; that dispatch runs its own synchronous
    /// receivers before it returns.
    ///
    /// ```swift
    /// bus.listen(NavigationEvent.self, executeOn: .synchronous) { event, _ in navigate(to: event.destination) }
    /// bus.dispatchNow(NavigationEvent(destination: .screenTwo))   // navigated when this returns
    /// ```
    ///
    /// `file` and `line` say where the dispatch is, for interceptors (``EventSource``).
    @inlinable
    public func dispatchNow<E: Eventable>(
        _ event: E, priority: EventPriority = .normal, file: StaticString = #fileID, line: UInt = #line
    ) {
        dispatch(
            event,
            metadata: EventMetadata(priority: priority, method: .queue, dispatchTime: ._eventNow, scheduledTime: nil),
            site: _DispatchSite(fileID: file, line: line)
        )
    }
}

extension Eventable {
    /// Dispatches this event on `bus` and returns once every synchronous receiver has handled
    /// it; see ``EventBus/dispatchNow(_:priority:file:line:)``.
    @inlinable
    public func dispatchNow(
        on bus: EventBus = EventCentral.shared, priority: EventPriority = .normal, file: StaticString = #fileID,
        line: UInt = #line
    ) {
        bus.dispatchNow(self, priority: priority, file: file, line: line)
    }
}
