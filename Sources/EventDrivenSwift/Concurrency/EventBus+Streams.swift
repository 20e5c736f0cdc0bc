// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import ServiceContextModule

extension EventBus {
    /// Every event of type `E` dispatched on this bus from now on, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await reading in bus.events(of: TemperatureEvent.self) {
    ///     print(reading.temperatureInCelsius)
    /// }
    /// ```
    ///
    /// Events arrive in the order they were dispatched (a stream has no batches, so priority and
    /// queue/stack do not reorder them). Several streams of one type each get every event.
    ///
    /// The stream subscribes when this method returns, not when iteration starts: create it
    /// before you start producing, then iterate it where you like. A `for await` inside a `Task`
    /// that starts after the producers would subscribe too late and miss the first events.
    ///
    /// The sequence ends when the task iterating it is cancelled, when the bus shuts down (after
    /// yielding what it had already buffered), or when the bus is freed.
    /// - Parameters:
    ///   - type: The event type.
    ///   - bufferingPolicy: How many events the stream keeps while its consumer is busy:
    ///     `.unbounded` (the default), `.bufferingNewest(n)` or `.bufferingOldest(n)`. Events the
    ///     buffer drops are counted in ``EventBusStatistics/dropped`` and posted as dead letters
    ///     (``DeadLetter/Reason/dropped``).
    public func events<E: Eventable>(
        of type: E.Type,
        bufferingPolicy: EventBufferingPolicy = .unbounded
    ) -> EventStream<E> {
        makeStream(of: type, bufferingPolicy: bufferingPolicy) { envelope in
            // Routing is by the exact dynamic type, so this cast always succeeds.
            envelope.event as! E
        }
    }

    /// Every event of type `E` with its ``EventMetadata``, as an asynchronous sequence.
    ///
    /// Behaves like ``events(of:bufferingPolicy:)``.
    public func eventsWithMetadata<E: Eventable>(
        of type: E.Type,
        bufferingPolicy: EventBufferingPolicy = .unbounded
    ) -> EventStream<(event: E, metadata: EventMetadata)> {
        makeStream(of: type, bufferingPolicy: bufferingPolicy) { envelope in
            (envelope.event as! E, envelope.metadata)
        }
    }

    /// Every event of type `E` with its ``EventMetadata`` and the `ServiceContext` it carries
    /// (current where it was dispatched, on a bus that propagates contexts; see
    /// ``propagatesServiceContext``), as an asynchronous sequence. A stream's consumer runs in
    /// its own task, so the context is handed over rather than made current:
    ///
    /// ```swift
    /// for await (order, _, context) in bus.eventsWithContext(of: OrderPlaced.self) {
    ///     ServiceContext.withValue(context) { process(order) }
    /// }
    /// ```
    ///
    /// Behaves like ``events(of:bufferingPolicy:)``.
    public func eventsWithContext<E: Eventable>(
        of type: E.Type,
        bufferingPolicy: EventBufferingPolicy = .unbounded
    ) -> EventStream<(event: E, metadata: EventMetadata, context: ServiceContext?)> {
        makeStream(of: type, bufferingPolicy: bufferingPolicy) { envelope in
            (envelope.event as! E, envelope.metadata, envelope.annotation?.handlerContext)
        }
    }
}

extension Eventable {
    /// Every event of this type dispatched on `bus` from now on, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await reading in TemperatureEvent.events() { … }
    /// ```
    ///
    /// See ``EventBus/events(of:bufferingPolicy:)``.
    public static func events(
        on bus: EventBus = EventCentral.shared,
        bufferingPolicy: EventBufferingPolicy = .unbounded
    ) -> EventStream<Self> {
        bus.events(of: Self.self, bufferingPolicy: bufferingPolicy)
    }
}
