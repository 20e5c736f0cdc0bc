/// The refusals collected while ``EventBus/tryDispatch(_:method:priority:)`` dispatches.
final class _DispatchFailures: Sendable {
    private let errors = LockedValue<[EventDrivenError]>([])

    func record(_ error: EventDrivenError) { errors.withLock { $0.append(error) } }
    var first: EventDrivenError? { errors.withLock { $0.first } }

    @TaskLocal static var current: _DispatchFailures?
}

extension EventBus {
    /// Dispatches `event` like ``dispatch(_:method:priority:file:line:)``, and throws when a receiver with a
    /// ``EventOverflowPolicy/failDispatch`` (or a timed-out ``EventOverflowPolicy/blockProducer(timeout:)``)
    /// mailbox refused it because it was full.
    ///
    /// The other receivers still get the event: the error says that at least one did not.
    /// - Throws: ``EventDrivenError/mailboxFull(receiver:eventType:)``, or
    ///   ``EventDrivenError/busShutDown(bus:eventType:)`` after shutdown.
    public func tryDispatch<E: Eventable>(
        _ event: E, method: EventDispatchMethod = .queue, priority: EventPriority = .normal
    ) throws(EventDrivenError) {
        if !lifecycle.isAccepting {
            dispatch(event, method: method, priority: priority)
            throw .busShutDown(bus: label, eventType: String(reflecting: E.self))
        }
        let failures = _DispatchFailures()
        _DispatchFailures.$current.withValue(failures) {
            dispatch(event, method: method, priority: priority)
        }
        if let error = failures.first { throw error }
    }
}
