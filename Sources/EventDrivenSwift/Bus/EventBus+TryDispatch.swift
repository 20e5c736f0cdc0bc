// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The refusals collected while ``EventBus/tryDispatch(_:method:priority:file:line:)`` dispatches.
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
    /// `file` and `line` say where the dispatch is, for interceptors and the topology
    /// (``EventSource``); leave them to their defaults.
    /// - Throws: ``EventDrivenError/mailboxFull(receiver:eventType:)``, or
    ///   ``EventDrivenError/busShutDown(bus:eventType:)`` after shutdown (and, during
    ///   ``shutdown(gracefullyWithin:)``, from outside the bus's handlers).
    public func tryDispatch<E: Eventable>(
        _ event: E, method: EventDispatchMethod = .queue, priority: EventPriority = .normal,
        file: StaticString = #fileID, line: UInt = #line
    ) throws(EventDrivenError) {
        // A refusal (a full mailbox, or the bus shut down) is recorded where it is decided.
        let failures = _DispatchFailures()
        _DispatchFailures.$current.withValue(failures) {
            dispatch(event, method: method, priority: priority, file: file, line: line)
        }
        if let error = failures.first { throw error }
    }
}
