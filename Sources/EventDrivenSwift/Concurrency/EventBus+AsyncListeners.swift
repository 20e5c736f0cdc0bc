// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventBus {
    /// Registers an async handler for events of type `E`.
    ///
    /// ```swift
    /// bus.listenAsync(TemperatureEvent.self) { reading in
    ///     try await store.save(reading)
    /// }
    /// ```
    ///
    /// One task runs the handler for one event at a time, in the order the events were dispatched
    /// (priority and queue/stack do not reorder them); the next event waits until the handler
    /// returns. A handler that throws does not stop later deliveries: the error is counted in
    /// ``EventBusStatistics/failed``, logged, and passed to the bus's error handler.
    ///
    /// A `@MainActor` closure runs on the main actor, in the same order.
    ///
    /// The name says "async": a synchronous `listen` runs its handler on the context `executeOn`
    /// names, in batch order (SPEC D3), which is a different promise.
    /// - Parameters:
    ///   - type: The event type.
    ///   - owner: Held weakly; once it is freed the listener is removed. `nil` (the default)
    ///     keeps the listener until its handle's `cancel()` or the bus shuts down.
    ///   - handler: Called with each event.
    /// - Returns: A handle whose `cancel()` skips every delivery whose handler has not started.
    @discardableResult
    public func listenAsync<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject? = nil,
        _ handler: @escaping @Sendable (E) async throws -> Void
    ) -> EventListenerHandle {
        listenSerially(type, owner: owner) { event, _ in try await handler(event as! E) }
    }

    /// Registers an async handler for events of type `E` that also receives each event's
    /// ``EventMetadata`` (its priority, method and dispatch time), as synchronous handlers do.
    ///
    /// ```swift
    /// bus.listenAsync(OrderCharged.self) { order, metadata in
    ///     logger.info("storing", metadata: ["waited": "\(metadata.age) ns"])
    ///     try await store.save(order)
    /// }
    /// ```
    ///
    /// Otherwise as `listenAsync(_:owner:_:)` with a one-argument handler: one task, one event at
    /// a time, in dispatch order.
    /// - Parameters:
    ///   - type: The event type.
    ///   - owner: Held weakly; once it is freed the listener is removed.
    ///   - handler: Called with each event and its metadata.
    /// - Returns: A handle whose `cancel()` skips every delivery whose handler has not started.
    @discardableResult
    public func listenAsync<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject? = nil,
        _ handler: @escaping @Sendable (E, EventMetadata) async throws -> Void
    ) -> EventListenerHandle {
        listenSerially(type, owner: owner) { event, metadata in try await handler(event as! E, metadata) }
    }

    /// Registers an async handler for events of type `E`: the earlier spelling of
    /// ``listenAsync(_:owner:_:)-(_,_,(E)->Void)``, whose closure shape alone (one argument instead of two)
    /// made it async and changed where and in what order it ran.
    @available(*, deprecated, renamed: "listenAsync(_:owner:_:)")
    @discardableResult
    public func listen<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject? = nil,
        _ handler: @escaping @Sendable (E) async throws -> Void
    ) -> EventListenerHandle {
        listenAsync(type, owner: owner, handler)
    }

    /// Registers a handler that runs isolated to `actor`, for events of type `E`.
    ///
    /// ```swift
    /// actor Thermostat { var readings: [Float] = [] }
    /// bus.listen(TemperatureEvent.self, on: thermostat) { thermostat, reading in
    ///     thermostat.readings.append(reading.temperatureInCelsius)
    /// }
    /// ```
    ///
    /// Deliveries reach the actor one at a time, in the order the events were dispatched. The
    /// actor is held weakly: once it is freed the listener is removed. Errors are handled as for
    /// ``listenAsync(_:owner:_:)-(_,_,(E)->Void)``.
    @discardableResult
    public func listen<E: Eventable, A: Actor>(
        _ type: E.Type,
        on actor: A,
        _ handler: @escaping @Sendable (isolated A, E) async throws -> Void
    ) -> EventListenerHandle {
        let weakActor = _WeakReference(actor)
        return listenSerially(type, owner: actor) { event, _ in
            guard let actor = weakActor.object else { throw _OwnerReleasedBeforeHandler() }
            try await handler(actor, event as! E)
        }
    }

    /// Registers a handler that runs isolated to `actor` and also receives each event's
    /// ``EventMetadata``; otherwise as `listen(_:on:_:)` with a two-argument handler.
    /// - Parameters:
    ///   - type: The event type.
    ///   - actor: The actor the handler runs on; held weakly.
    ///   - handler: Called with the actor, each event and its metadata.
    /// - Returns: A handle whose `cancel()` skips every delivery whose handler has not started.
    @discardableResult
    public func listen<E: Eventable, A: Actor>(
        _ type: E.Type,
        on actor: A,
        _ handler: @escaping @Sendable (isolated A, E, EventMetadata) async throws -> Void
    ) -> EventListenerHandle {
        let weakActor = _WeakReference(actor)
        return listenSerially(type, owner: actor) { event, metadata in
            guard let actor = weakActor.object else { throw _OwnerReleasedBeforeHandler() }
            try await handler(actor, event as! E, metadata)
        }
    }

    /// Registers `handler` behind a serial consumer task of its own.
    func listenSerially<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject?,
        _ handler: @escaping @Sendable (any Eventable, EventMetadata) async throws -> Void
    ) -> EventListenerHandle {
        if type == AllEvents.self { return failedRegistration(.catchAllSubscription(api: "listen")) }
        let sink = _SerialHandlerSink(bus: self, handler: handler)
        let subscription = _Subscription(
            type, owner: owner, target: sink, interest: .all, registrar: sink, handlers: .empty)
        sink.register(subscription)
        return EventListenerHandle(subscription)
    }
}
