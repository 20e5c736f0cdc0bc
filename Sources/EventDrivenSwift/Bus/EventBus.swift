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
/// subscribers and hands the event to each subscriber's receiver, which takes it without a lock.
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

    /// The generic step of the dispatch path, inlined into the caller's module, where it is
    /// specialized for `E`: the routing key is a constant and the event is boxed without generic
    /// calls. Everything after it is plain code in this module, ``route(_:key:metadata:site:)``.
    @inlinable @inline(__always)
    func dispatch<E: Eventable>(_ event: E, metadata: EventMetadata, site: _DispatchSite = .library) {
        route(event, key: _routingKey(of: event), metadata: metadata, site: site)
    }

    /// The dispatch path: checks the bus is accepting, lets consumers run first, then takes the
    /// route of `key` from the registry and hands the event to every subscriber through the
    /// route, after the registry lock.
    ///
    /// The registry lock is held only to read the route, an immutable snapshot, and retain it:
    /// nothing is delivered or enqueued under it. The retained route keeps the dispatch counted
    /// in flight (``_DispatchesInFlight``) until it is released, so a shutdown that removed every
    /// route waits for it. A dispatch that finds no route enters the count itself, then checks the
    /// lifecycle again: one that lost that race with a shutdown is rejected like one after it.
    @usableFromInline
    func route(_ event: any Eventable, key: ObjectIdentifier, metadata: EventMetadata, site: _DispatchSite) {
        // While the bus is observed (interceptors, or service contexts to carry), the event is
        // annotated first; otherwise that costs one relaxed load.
        let annotation =
            counters.observation.isAnnotating
            ? counters.observation.annotation(for: event, metadata, site: site) : nil
        guard lifecycle.isAccepting else {
            return reject(_EventEnvelope(event: event, metadata: metadata, annotation: annotation))
        }
        // Consumers run first, on this thread; the check is one relaxed load while there are none.
        guard stores.consumers.isEmpty else {
            return routeWithConsumers(event, key: key, metadata: metadata, annotation: annotation)
        }
        guard let route = registry.withLock({ $0.routes[key] }) else {
            return deliverToNobodyCounted(_EventEnvelope(event: event, metadata: metadata, annotation: annotation))
        }
        route.deliver(
            _EventEnvelope(
                event: event, metadata: metadata, sequence: route.latest?.advance() ?? 0, annotation: annotation))
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
        let annotation =
            counters.observation.isAnnotating
            ? counters.observation.annotation(for: message, metadata, site: .library) : nil
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

// MARK: The rarer paths of a dispatch

extension EventBus {
    /// Counts an event that found no route, in flight: a dispatch that lost the race with a
    /// shutdown is rejected.
    @inline(never)
    func deliverToNobodyCounted(_ envelope: _EventEnvelope) {
        dispatches.enter()
        defer { dispatches.leave() }
        guard lifecycle.isAccepting else { return reject(envelope) }
        counters.settleNoReceiver(envelope)
    }

    /// ``route(_:key:metadata:site:)`` while consumers are registered: they settle their
    /// outcomes before the route is read, so the whole dispatch is counted in flight.
    @inline(never)
    func routeWithConsumers(
        _ event: any Eventable, key: ObjectIdentifier, metadata: EventMetadata, annotation: _DispatchAnnotation?
    ) {
        dispatches.enter()
        defer { dispatches.leave() }
        let envelope = _EventEnvelope(event: event, metadata: metadata, annotation: annotation)
        guard lifecycle.isAccepting else { return reject(envelope) }
        let consumed = offerToConsumers({ envelope }, type: key)
        guard let route = registry.withLock({ $0.routes[key] }) else {
            if !consumed { counters.settleNoReceiver(envelope) }
            return
        }
        route.deliver(route.latest.map { envelope.sequenced($0.advance()) } ?? envelope)
    }
}
