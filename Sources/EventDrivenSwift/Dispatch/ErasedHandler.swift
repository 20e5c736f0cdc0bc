/// The handler of one subscription, erased to the type-erased event the dispatch path carries.
///
/// Built by inlinable registration code in the caller's module, where it is specialized for the
/// event type: the event is taken out of its existential by code that knows its type. For a type
/// that ``_boxesInline(_:)``, a second form reads the event straight from the address of its
/// bytes, which lets a mailbox run an entry in place and then reuse its memory without
/// destroying it.
@usableFromInline
struct _ErasedHandler: Sendable {
    /// Runs the handler for an event of the subscription's type.
    let handler: @Sendable (any Eventable, EventMetadata) throws -> Void
    /// Runs the handler for the event whose bytes are at the address given; only when
    /// `hasInlineHandler`, that is when the type is stored inline without references.
    let inlineHandler: @Sendable (UnsafeRawPointer, EventMetadata) throws -> Void
    let hasInlineHandler: Bool
    /// Where an error the handler throws is reported; `nil` for handlers that cannot throw.
    let failures: _FailureReport?
    /// `false` for ``empty``: the sink runs the user's code, and reports it to interceptors.
    let runsHandler: Bool

    /// The erased forms of `handler`, for events of type `E`.
    @inlinable
    init<E: Eventable>(_ handler: @escaping @Sendable (E, EventMetadata) -> Void) {
        let inlineHandler: (@Sendable (UnsafeRawPointer, EventMetadata) -> Void)?
        if _boxesInline(E.self) {
            inlineHandler = { bytes, metadata in handler(bytes.load(as: E.self), metadata) }
        } else {
            inlineHandler = nil
        }
        self.init(
            handler: { event, metadata in handler(_project(event, as: E.self), metadata) },
            inlineHandler: inlineHandler)
    }

    /// The erased forms of a `handler` that may throw, for events of type `E`; what it throws is
    /// reported to `failures` and the delivery counted as failed.
    @inlinable
    init<E: Eventable>(
        throwing handler: @escaping @Sendable (E, EventMetadata) throws -> Void, failures: _FailureReport
    ) {
        let inlineHandler: (@Sendable (UnsafeRawPointer, EventMetadata) throws -> Void)?
        if _boxesInline(E.self) {
            inlineHandler = { bytes, metadata in try handler(bytes.load(as: E.self), metadata) }
        } else {
            inlineHandler = nil
        }
        self.init(
            handler: { event, metadata in try handler(_project(event, as: E.self), metadata) },
            inlineHandler: inlineHandler, failures: failures)
    }

    /// A handler that does nothing, for a subscription whose sink runs the user's code itself
    /// (such a sink may still deliver to the subscription, to apply its checks).
    static var empty: _ErasedHandler {
        _ErasedHandler(handler: { _, _ in }, inlineHandler: nil, runsHandler: false)
    }

    @usableFromInline
    init(
        handler: @escaping @Sendable (any Eventable, EventMetadata) throws -> Void,
        inlineHandler: (@Sendable (UnsafeRawPointer, EventMetadata) throws -> Void)?,
        failures: _FailureReport? = nil, runsHandler: Bool = true
    ) {
        self.handler = handler
        self.failures = failures
        self.runsHandler = runsHandler
        // Not optional, so that a delivery calls it without copying (retaining) an optional.
        self.inlineHandler = inlineHandler ?? { _, _ in preconditionFailure("no inline form") }
        self.hasInlineHandler = inlineHandler != nil
    }
}
