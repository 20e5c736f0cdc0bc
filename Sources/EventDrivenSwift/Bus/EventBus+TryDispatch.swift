// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

internal import CEventDrivenSwiftShims
import Synchronization

/// The refusals collected while ``EventBus/tryDispatch(_:method:priority:file:line:)`` dispatches.
///
/// Only the refusals of its own event: the task-local that names the collector is still set
/// while the synchronous listeners and consumers that the dispatch runs dispatch again, and
/// inherited by the tasks it starts, whose refusals go to the error handler like any other
/// (`AdversarialTryDispatchTests`). Its own are decided on the calling thread at the depth of
/// synchronous delivery the call started at, before it returns.
final class _DispatchFailures: Sendable {
    private let errors = LockedValue<[EventDrivenError]>([])
    /// The calling thread's depth word (its address names the thread) and its value at the start.
    private let depthWord: UInt
    private let depth: Int
    private let isOpen = Atomic<Bool>(true)

    init() {
        // The calling thread's own word (a C thread-local, never null), alive as long as the thread.
        let word = c_eds_synchronous_depth_pointer().unsafelyUnwrapped
        depthWord = UInt(bitPattern: word)
        depth = word.pointee
    }

    /// Records `error` if it refuses the collecting call's own event; `false` otherwise, and the
    /// caller reports it as any refusal.
    func record(_ error: EventDrivenError) -> Bool {
        let word = c_eds_synchronous_depth_pointer().unsafelyUnwrapped
        guard isOpen.load(ordering: .acquiring), UInt(bitPattern: word) == depthWord, word.pointee == depth else {
            return false
        }
        errors.withLock { $0.append(error) }
        return true
    }

    /// Stops collecting: the call returns.
    func close() { isOpen.store(false, ordering: .releasing) }

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
        failures.close()
        if let error = failures.first { throw error }
    }
}
