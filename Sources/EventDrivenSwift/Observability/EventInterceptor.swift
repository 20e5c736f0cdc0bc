// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import ServiceContextModule

/// Code that sees every dispatch and every delivery of the buses it is added to: the one hook
/// that metrics, tracing and the ``EventFlowRecorder`` are built on.
///
/// Add one with ``EventBus/addInterceptor(_:)``. Every requirement has a default that does
/// nothing, so a conformer implements only what it needs:
///
/// ```swift
/// struct PrintingInterceptor: EventInterceptor {
///     func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
///         print("dispatched \(dispatch.eventType) from \(dispatch.source)")
///     }
///     func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) {
///         print("\(delivery.eventType) → \(delivery.receiver?.name ?? "?"): \(result.outcome)")
///     }
/// }
/// let handle = bus.addInterceptor(PrintingInterceptor())
/// ```
///
/// The hooks run synchronously on the thread that dispatches or delivers, so keep them short and
/// never block in them. While no interceptor is installed on a bus, dispatch and delivery pay one
/// relaxed atomic load for them.
///
/// Every delivery is reported to ``didDeliver(_:result:)`` exactly once, whatever its outcome:
/// after its handler ran (delivered or failed, with the handler's duration), or when the bus
/// decided not to run it (expired, superseded, filtered, owner released, dropped, discarded).
public protocol EventInterceptor: Sendable {
    /// Called when the interceptor is added to `bus`.
    func attached(to bus: EventBus)

    /// Called when the interceptor is removed from `bus`.
    func detached(from bus: EventBus)

    /// Called on the dispatching thread, before the event is routed. `context` is the
    /// `ServiceContext` the event carries to its handlers (``EventDeliveryInfo/serviceContext``);
    /// it starts as the context current at the dispatch and may be replaced, for instance by a
    /// producer span's.
    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext)

    /// Called when a dispatch is refused because the bus has shut down, or because it came from
    /// outside the bus's handlers while the bus stopped gracefully. A refused dispatch is not also
    /// reported to ``didDispatch(_:context:)``, except one made at the very moment a stop began,
    /// which may be reported to both.
    func didReject(_ dispatch: EventDispatchInfo)

    /// Called when an event finds no one subscribed to its type.
    func didFindNoReceiver(_ dispatch: EventDispatchInfo)

    /// Wraps the run of a synchronous handler: call `handler` exactly once, and let what it
    /// throws propagate. Runs where the handler runs, with the event's service context current.
    func wrapHandler(for delivery: EventDeliveryInfo, _ handler: () throws -> Void) rethrows

    /// Wraps the run of an async handler, as ``wrapHandler(for:_:)`` does a synchronous one.
    func wrapAsyncHandler(for delivery: EventDeliveryInfo, _ handler: () async throws -> Void) async rethrows

    /// Called once for every delivery, with its outcome.
    func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult)
}

extension EventInterceptor {
    /// Does nothing.
    public func attached(to bus: EventBus) {}
    /// Does nothing.
    public func detached(from bus: EventBus) {}
    /// Leaves the context as it is.
    public func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {}
    /// Does nothing.
    public func didReject(_ dispatch: EventDispatchInfo) {}
    /// Does nothing.
    public func didFindNoReceiver(_ dispatch: EventDispatchInfo) {}
    /// Runs the handler.
    public func wrapHandler(for delivery: EventDeliveryInfo, _ handler: () throws -> Void) rethrows {
        try handler()
    }
    /// Runs the handler.
    public func wrapAsyncHandler(
        for delivery: EventDeliveryInfo, _ handler: () async throws -> Void
    ) async rethrows {
        try await handler()
    }
    /// Does nothing.
    public func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) {}
}
