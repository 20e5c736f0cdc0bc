/// The handler of one subscription, erased to the type-erased event the dispatch path carries.
///
/// Built by inlinable registration code in the caller's module, where it is specialized for the
/// event type: the event is taken out of its existential by code that knows its type
/// (``_project(_:as:)``).
@usableFromInline
struct _ErasedHandler: Sendable {
    /// Runs the handler for an event of the subscription's type.
    let handler: @Sendable (any Eventable, EventMetadata) throws -> Void
    /// Where an error the handler throws is reported; `nil` for handlers that cannot throw.
    let failures: _FailureReport?
    /// `false` for ``empty``: the sink runs the user's code, and reports it to interceptors.
    let runsHandler: Bool

    /// The erased form of `handler`, for events of type `E`.
    @inlinable
    init<E: Eventable>(_ handler: @escaping @Sendable (E, EventMetadata) -> Void) {
        self.init(handler: { event, metadata in handler(_project(event, as: E.self), metadata) })
    }

    /// The erased form of a `handler` that may throw, for events of type `E`; what it throws is
    /// reported to `failures` and the delivery counted as failed.
    @inlinable
    init<E: Eventable>(
        throwing handler: @escaping @Sendable (E, EventMetadata) throws -> Void, failures: _FailureReport
    ) {
        self.init(
            handler: { event, metadata in try handler(_project(event, as: E.self), metadata) }, failures: failures)
    }

    /// A handler that does nothing, for a subscription whose sink runs the user's code itself
    /// (such a sink may still deliver to the subscription, to apply its checks).
    static var empty: _ErasedHandler {
        _ErasedHandler(handler: { _, _ in }, runsHandler: false)
    }

    @usableFromInline
    init(
        handler: @escaping @Sendable (any Eventable, EventMetadata) throws -> Void,
        failures: _FailureReport? = nil, runsHandler: Bool = true
    ) {
        self.handler = handler
        self.failures = failures
        self.runsHandler = runsHandler
    }
}
