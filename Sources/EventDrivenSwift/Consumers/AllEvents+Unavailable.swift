// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

// `AllEvents` has no values and is never dispatched, so a listener or a stream of it would
// receive nothing. These spellings are compile errors that say where a catch-all lives; generic
// code that reaches the same calls at run time gets ``EventDrivenError/Code/catchAllSubscription``.
extension EventBus {
    /// Unavailable: ``AllEvents`` has no values. Register an ``EventConsumer`` instead.
    @available(*, unavailable, message: "AllEvents has no values: for a catch-all, register(_:) an EventConsumer")
    public func listen(
        _ type: AllEvents.Type, owner: AnyObject? = nil, executeOn: DeliveryContext = .requesterThread,
        _ callback: @escaping @Sendable (AllEvents, EventMetadata) -> Void
    ) -> EventListenerHandle {
        fatalError("unavailable")
    }

    /// Unavailable: ``AllEvents`` has no values. Register an ``EventConsumer`` instead.
    @available(*, unavailable, message: "AllEvents has no values: for a catch-all, register(_:) an EventConsumer")
    public func listen(
        _ type: AllEvents.Type, owner: AnyObject? = nil, _ handler: @escaping @Sendable (AllEvents) async throws -> Void
    ) -> EventListenerHandle {
        fatalError("unavailable")
    }

    /// Unavailable: ``AllEvents`` has no values. Register an ``EventConsumer`` instead.
    @available(*, unavailable, message: "AllEvents has no values: for a catch-all, register(_:) an EventConsumer")
    public func events(
        of type: AllEvents.Type, bufferingPolicy: EventBufferingPolicy = .unbounded
    ) -> EventStream<AllEvents> {
        fatalError("unavailable")
    }
}
