import Dispatch
import Foundation
import Logging
import Synchronization

/// A bus: the registry of everyone listening for events, and the entry point for dispatching them.
///
/// ``EventCentral/shared`` is the bus that `event.queue()` and `Event.addListener(…)` use.
/// Create more buses to isolate parts of a program or tests from each other: nothing
/// dispatched on one bus is seen on another.
///
/// ```swift
/// let bus = EventBus(label: "Game")
/// let handle = TemperatureEvent.addListener(self, Self.onTemperature, on: bus)
/// TemperatureEvent(temperatureInCelsius: 21).queue(on: bus)
/// await bus.drain()
/// ```
///
/// Dispatch never waits on a handler: it reads an immutable snapshot of the event type's
/// subscribers and appends the event to each subscriber's mailbox.
public final class EventBus: Sendable {
    /// A name for logs and diagnostics.
    public let label: String
    /// Where the bus logs misuse and errors.
    public let logger: Logger

    /// The routes, under a lock that blocks with priority inheritance (see ``_PILockedValue``).
    let registry: _PILockedValue<_Registry>
    @usableFromInline
    let counters: _BusCounters
    let tasks = _TaskTracker()
    /// Dispatches in progress, for `shutdown` to wait for (see ``_DispatchesInFlight``).
    let dispatches = _DispatchesInFlight()
    /// Accepting, shutting down or closed (Shutdown/).
    let lifecycle = _BusLifecycle()
    private let errorHandler = LockedValue<_ErrorHandler?>(nil)
    let sharedMailboxes = LockedValue(_SharedMailboxes())
    /// State values and consumers (Channels/, States/, Consumers/).
    let stores = _BusStores()
    let scheduledEvents = _BusSchedule()
    /// Set once by the test kit's synchronous bus (Testing/EventBus+Testing.swift).
    let synchronousForTesting = Atomic<Bool>(false)
    /// Warns once when main-actor deliveries wait for a main queue that does not run.
    let mainQueueWatch: _MainQueueWatch

    /// Creates an independent bus.
    /// - Parameters:
    ///   - label: A name for logs, diagnostics and metrics.
    ///   - logger: Where the bus reports errors; by default a logger labelled `EventDrivenSwift`.
    ///   - propagatesServiceContext: Whether events carry the `ServiceContext` current where
    ///     they are dispatched to their handlers (see ``propagatesServiceContext``).
    public init(label: String = "EventBus", logger: Logger? = nil, propagatesServiceContext: Bool = false) {
        self.label = label
        self.registry = _PILockedValue(_Registry(inFlight: dispatches))
        self.counters = _BusCounters(busLabel: label)
        if propagatesServiceContext { counters.observation.propagatesContext = true }
        self.logger = logger ?? Logger(label: "EventDrivenSwift")
        self.mainQueueWatch = _MainQueueWatch(logger: self.logger, busLabel: label)
    }

    deinit {
        let mailboxes = sharedMailboxes.withLock { $0.all }
        for mailbox in mailboxes { mailbox.close() }
    }

    // MARK: Dispatch

    /// Dispatches `event` through the queue and returns at once.
    ///
    /// `file` and `line` say where the dispatch is, for interceptors and the topology
    /// (``EventSource``); leave them to their defaults.
    @inlinable
    public func queue<E: Eventable>(
        _ event: E, priority: EventPriority = .normal, file: StaticString = #fileID, line: UInt = #line
    ) {
        dispatch(event, method: .queue, priority: priority, file: file, line: line)
    }

    /// Dispatches `event` through the stack and returns at once.
    @inlinable
    public func stack<E: Eventable>(
        _ event: E, priority: EventPriority = .normal, file: StaticString = #fileID, line: UInt = #line
    ) {
        dispatch(event, method: .stack, priority: priority, file: file, line: line)
    }

    /// Dispatches `event` with the given method and priority and returns at once.
    @inlinable
    public func dispatch<E: Eventable>(
        _ event: E, method: EventDispatchMethod, priority: EventPriority = .normal, file: StaticString = #fileID,
        line: UInt = #line
    ) {
        dispatch(
            event,
            metadata: EventMetadata(priority: priority, method: method, dispatchTime: ._eventNow, scheduledTime: nil),
            site: _DispatchSite(fileID: file, line: line)
        )
    }

    /// The dispatch path: route by exact type, number the event if a latest-only listener
    /// wants that, and hand it to every subscriber.
    ///
    /// Inlinable, and the only generic step: in the caller's module it is specialized for `E`,
    /// so the routing key is a constant and the event is boxed without generic calls. Routing
    /// and delivery are plain code in this module.
    ///
    /// While the bus is observed (interceptors, or service contexts to carry), the metadata is
    /// annotated first, out of line; otherwise that costs one relaxed load. Always inlined, so
    /// that a dispatch nobody observes is one call into the module,
    /// ``route(key:method:priority:boxesInline:makeEnvelope:)``.
    @inlinable @inline(__always)
    func dispatch<E: Eventable>(_ event: E, metadata: EventMetadata, site: _DispatchSite = .library) {
        if _slowPath(counters.observation.isAnnotating) {
            dispatchAnnotated(event, metadata: metadata, site: site)
            return
        }
        route(
            key: _routingKey(of: event), method: metadata.method, priority: metadata.priority,
            boxesInline: _boxesInline(E.self)
        ) { sequence in
            _EventEnvelope(event: event, metadata: metadata, sequence: sequence)
        }
    }

    /// ``dispatch(_:metadata:site:)`` while the bus is observed: the envelope carries the
    /// annotation interceptors and service contexts need. Specialized but never inlined, so
    /// that it costs the unobserved dispatch nothing.
    @inlinable @inline(never)
    func dispatchAnnotated<E: Eventable>(_ event: E, metadata: EventMetadata, site: _DispatchSite) {
        let annotation = counters.observation.annotation(for: event, metadata, site: site)
        // Not `boxesInline` when there is an annotation: an entry built in place is never
        // destroyed, and the annotation must be released.
        route(
            key: _routingKey(of: event), method: metadata.method, priority: metadata.priority,
            boxesInline: annotation == nil && _boxesInline(E.self)
        ) { sequence in
            _EventEnvelope(event: event, metadata: metadata, sequence: sequence, annotation: annotation)
        }
    }

    /// Hands the event to the subscribers of `key`; `makeEnvelope` boxes it with its sequence
    /// number, as often as it is called, `method` and `priority` are how it was dispatched.
    ///
    /// A route whose subscribers all have unbounded mailboxes (the common case) is served while
    /// the registry lock is held: the route is borrowed, not retained, and each entry is appended
    /// under its mailbox's own lock nested inside (the only nesting of the two, so it cannot
    /// deadlock). Nothing is allocated under the registry lock: an event that is not stored
    /// inline (``_boxesInline(_:)``) is boxed before it, wakes are finished after it, and a
    /// mailbox that would have to grow ends the serving; the retained route's remaining
    /// subscribers are then served once the lock is released (see ``_Route``). Any other
    /// route is retained, and delivered to once the lock is released.
    ///
    /// An entry is built in its mailbox from a fresh envelope rather than copied from a shared one:
    /// for a lone subscriber always, and for every subscriber when the event is stored inline in
    /// its box (`boxesInline`), where boxing costs less than the copy; such entries are marked to
    /// be run in place (see ``_MailboxEntry``).
    ///
    /// A served dispatch is not counted in flight (``_DispatchesInFlight``): its entries are
    /// appended under the registry lock, and a shutdown removes the subscriptions under that lock
    /// before it closes their mailboxes, so every entry a served dispatch made is in its mailbox
    /// when the mailbox is closed, and is counted there. A dispatch that delivers after the lock
    /// (synchronous handlers, pools, tasks, the rest of a partly served route) holds the route it
    /// retained under the lock, and every route is in the count while it lives (see ``_Route``),
    /// so a shutdown that removed every route waits for it. The rest (consumers, no subscriber)
    /// enter the count, then check the lifecycle again: a dispatch that lost that race with a
    /// shutdown is rejected like one that came after it.
    @usableFromInline
    func route(
        key: ObjectIdentifier, method: EventDispatchMethod, priority: EventPriority, boxesInline: Bool,
        makeEnvelope: (UInt64) -> _EventEnvelope
    ) {
        guard boxesInline else {
            return routeBoxed(key: key, method: method, priority: priority, makeEnvelope: makeEnvelope)
        }
        routeMade(key: key, method: method, priority: priority, boxesInline: true, makeEnvelope: makeEnvelope)
    }

    /// ``route(key:method:priority:boxesInline:makeEnvelope:)`` once the envelope can be made
    /// without allocating.
    @inline(__always)
    func routeMade(
        key: ObjectIdentifier, method: EventDispatchMethod, priority: EventPriority, boxesInline: Bool,
        makeEnvelope: (UInt64) -> _EventEnvelope
    ) {
        guard lifecycle.isAccepting else {
            reject(makeEnvelope(0))
            return
        }
        // Consumers run first, on this thread; the check is one relaxed load while there are none.
        guard stores.consumers.isEmpty else {
            routeWithConsumers(
                key: key, method: method, priority: priority, boxesInline: boxesInline, makeEnvelope: makeEnvelope)
            return
        }
        var serving = _Serving()
        if serve(key: key, method: method, priority: priority, boxesInline: boxesInline, makeEnvelope, &serving) {
            serving.followUps.finish()
            return
        }
        if serving.found != nil {
            // The retained route keeps this dispatch counted in flight until it is released.
            deliverUnserved(serving, method: method, consumed: false, boxesInline: boxesInline, makeEnvelope)
        } else {
            deliverToNobodyCounted(makeEnvelope(0))
        }
    }

    /// Dispatches `message` to the subscribers of one labelled or keyed channel.
    func dispatch<E: Eventable>(_ message: E, toChannel channel: _ChannelKey, metadata: EventMetadata) {
        dispatches.enter()
        defer { dispatches.leave() }
        guard lifecycle.isAccepting else {
            counters.rejected.add(1, ordering: .relaxed)
            counters.observation.rejected(message, metadata: metadata, site: nil)
            report(.busShutDown(bus: label, eventType: "\(channel.base)"))
            return
        }
        let annotation = counters.observation.annotationIfObserved(for: message, metadata)
        let envelope = _EventEnvelope(event: message, metadata: metadata, annotation: annotation)
        if let route = registry.withLock({ $0.channels[channel] }) {
            route.deliver(envelope)
        } else {
            counters.settleNoReceiver(envelope)
        }
    }

    /// Counts a dispatch refused after shutdown, and reports it.
    func reject(_ envelope: _EventEnvelope) {
        counters.rejected.add(1, ordering: .relaxed)
        counters.observation.rejected(envelope.event, metadata: envelope.metadata, site: envelope.annotation?.site)
        report(.busShutDown(bus: label, eventType: String(reflecting: type(of: envelope.event))))
    }

    // MARK: Errors and statistics

    /// What the bus has done with its events so far.
    public var statistics: EventBusStatistics { counters.snapshot }

    /// Sets the handler that receives every error the bus reports (misuse, dispatch after
    /// shutdown, a handler that threw, a full mailbox). Pass `nil` to remove it.
    ///
    /// Errors are logged through ``logger`` either way, as swift-log asks of libraries: at
    /// `.debug` while a handler is set (the handler has them; nothing is written twice), at
    /// `.info` otherwise. To silence or route them, pass a `Logger` with the level and handler
    /// you want to ``init(label:logger:propagatesServiceContext:)``.
    public func setErrorHandler(_ handler: (@Sendable (EventDrivenError) -> Void)?) {
        let box = handler.map(_ErrorHandler.init)
        let replaced = errorHandler.withLock { current in
            defer { current = box }
            return current
        }
        _ = consume replaced
    }

    /// Logs `error` and passes it to the error handler.
    func report(_ error: EventDrivenError) {
        // The handler is boxed: reading a closure stored at another abstraction through `inout`
        // wraps it in a new thunk on every read, so reports would grow slower, then overflow.
        let handler = errorHandler.withLock { $0 }
        if let handler {
            logger.debug("\(error.description)", metadata: ["bus": "\(label)"])
            handler.body(error)
        } else {
            logger.info("\(error.description)", metadata: ["bus": "\(label)"])
        }
    }
}

extension EventBus: _SubscriptionRegistrar {
    var observation: _Observation? { counters.observation }
}

// MARK: Serving: what the dispatch does with the route it finds

extension EventBus {
    /// ``route(key:method:priority:boxesInline:makeEnvelope:)`` for an event that is not stored
    /// inline: it is boxed here, before the registry lock, so that nothing is allocated under
    /// it; the entries copy the box.
    @inline(never)
    func routeBoxed(
        key: ObjectIdentifier, method: EventDispatchMethod, priority: EventPriority,
        makeEnvelope: (UInt64) -> _EventEnvelope
    ) {
        let envelope = makeEnvelope(0)
        routeMade(key: key, method: method, priority: priority, boxesInline: false) { envelope.sequenced($0) }
    }

    /// Counts an event that found no route, in flight: it settles its outcome after the
    /// registry lock, holding no route. A dispatch that lost the race with a shutdown is rejected.
    @inline(never)
    func deliverToNobodyCounted(_ envelope: _EventEnvelope) {
        dispatches.enter()
        defer { dispatches.leave() }
        guard lifecycle.isAccepting else { return reject(envelope) }
        counters.settleNoReceiver(envelope)
    }

    /// ``routeMade(key:method:priority:boxesInline:makeEnvelope:)`` while consumers are
    /// registered: they settle their outcomes before the registry lock, so the whole dispatch is
    /// counted in flight.
    @inline(never)
    func routeWithConsumers(
        key: ObjectIdentifier, method: EventDispatchMethod, priority: EventPriority, boxesInline: Bool,
        makeEnvelope: (UInt64) -> _EventEnvelope
    ) {
        dispatches.enter()
        defer { dispatches.leave() }
        guard lifecycle.isAccepting else {
            reject(makeEnvelope(0))
            return
        }
        let consumed = offerToConsumers({ makeEnvelope(0) }, type: key)
        var serving = _Serving()
        if serve(key: key, method: method, priority: priority, boxesInline: boxesInline, makeEnvelope, &serving) {
            serving.followUps.finish()
            return
        }
        deliverUnserved(serving, method: method, consumed: consumed, boxesInline: boxesInline, makeEnvelope)
    }

    /// Serves the route of `key` under the registry lock, if its plan allows (see
    /// ``_Route/serve(method:priority:boxesInline:_:_:)``), and returns `true`; otherwise
    /// returns `false`, with the route, if there is one, retained into `serving.found`.
    @inline(__always)
    func serve(
        key: ObjectIdentifier, method: EventDispatchMethod, priority: EventPriority, boxesInline: Bool,
        _ makeEnvelope: (UInt64) -> _EventEnvelope, _ serving: inout _Serving
    ) -> Bool {
        registry.withLock { registry in
            registry.routes.withRoute(key) {
                $0.serve(method: method, priority: priority, boxesInline: boxesInline, makeEnvelope, &serving)
            } ?? false
        }
    }

    /// Delivers what ``serve(key:method:priority:boxesInline:_:_:)`` left to the route it
    /// retained (and releases it), or counts an event that found no subscriber and no consumer.
    @inline(__always)
    func deliverUnserved(
        _ serving: _Serving, method: EventDispatchMethod, consumed: Bool, boxesInline: Bool,
        _ makeEnvelope: (UInt64) -> _EventEnvelope
    ) {
        guard let found = serving.found else {
            if !consumed { counters.settleNoReceiver(makeEnvelope(0)) }
            return
        }
        // The route was retained under the lock; it is lent to `deliver`, then released.
        found._withUnsafeGuaranteedRef {
            $0.deliver(after: serving, method: method, boxesInline: boxesInline, makeEnvelope)
        }
        found.release()
    }
}
