// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Instrumentation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A bus: the registry of everyone listening for events, and the entry point for dispatching them.
///
/// ``EventCentral/shared`` is the bus that `event.queue()` and `Event.addListener(…)` use.
/// Create more buses to isolate parts of a program or tests from each other: nothing
/// dispatched on one bus is seen on another.
///
/// ```swift
/// let bus = EventBus(label: "Game")
/// let handle = TemperatureEvent.addListener(self, Thermostat.onTemperature, on: bus)  // in a class Thermostat
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

    /// The routes, changed under a lock that blocks with priority inheritance (see
    /// ``_PILockedValue``).
    let registry: _PILockedValue<_Registry>
    /// The routes of plain events as dispatches read them, without a lock (see ``_PublishedRoutes``).
    let routes: _PublishedRoutes
    /// The routes of channels, by the identity of the key each was subscribed with (see ``_Registry``).
    let channelRoutes: _PublishedRoutes
    @usableFromInline
    let counters: _BusCounters
    let tasks = _TaskTracker()
    /// The one target of the bus's `.synchronous` subscriptions, so that neighbouring ones in a
    /// route share it and are handed over together (``_Route``).
    let synchronousTarget: _SynchronousTarget
    /// Dispatches in progress, for `shutdown` to wait for (see ``_DispatchesInFlight``).
    let dispatches = _DispatchesInFlight()
    /// Accepting, shutting down or closed (Shutdown/).
    let lifecycle = _BusLifecycle()
    let errorHandler = LockedValue<_ErrorHandler?>(nil)
    let sharedMailboxes = LockedValue(_SharedMailboxes())
    /// State values and consumers (Channels/, States/, Consumers/).
    let stores = _BusStores()
    let scheduledEvents = _BusSchedule()
    /// Set once by the test kit's synchronous bus (Testing/EventBus+Testing.swift).
    let synchronousForTesting = Atomic<Bool>(false)
    /// Warns once when main-actor deliveries wait for a main queue that does not run.
    let mainQueueWatch: _MainQueueWatch

    /// Creates an independent bus that propagates service contexts when an instrument has been
    /// bootstrapped with `InstrumentationSystem` (see ``propagatesServiceContext``).
    /// - Parameters:
    ///   - label: A name for logs, diagnostics and metrics.
    ///   - logger: Where the bus reports errors; by default a logger labelled `EventDrivenSwift`.
    public convenience init(label: String = "EventBus", logger: Logger? = nil) {
        self.init(label: label, logger: logger, propagatesServiceContext: InstrumentationSystem.isBootstrapped)
    }

    /// Creates an independent bus.
    /// - Parameters:
    ///   - label: A name for logs, diagnostics and metrics.
    ///   - logger: Where the bus reports errors; by default a logger labelled `EventDrivenSwift`.
    ///   - propagatesServiceContext: Whether events carry the `ServiceContext` current where
    ///     they are dispatched to their handlers (see ``propagatesServiceContext``).
    public init(label: String = "EventBus", logger: Logger? = nil, propagatesServiceContext: Bool) {
        self.label = label
        let routes = _PublishedRoutes()
        self.routes = routes
        let channelRoutes = _PublishedRoutes()
        self.channelRoutes = channelRoutes
        self.registry = _PILockedValue(_Registry(published: routes, publishedChannels: channelRoutes))
        self.counters = _BusCounters(busLabel: label)
        self.synchronousTarget = _SynchronousTarget(counters: counters)
        if propagatesServiceContext { counters.observation.propagatesContext = true }
        self.logger = logger ?? Logger(label: "EventDrivenSwift")
        self.mainQueueWatch = _MainQueueWatch(logger: self.logger, busLabel: label)
    }

    deinit {
        let mailboxes = sharedMailboxes.withLock { $0.all }
        for mailbox in mailboxes { mailbox.close() }
        // A channel's or state's subscription and its handle's reference hold each other until
        // the subscription ends (``_SubscriptionReference``): the handles let go of it with the
        // bus. Deliveries already queued still run (`ConsumerTests`, W3).
        for subscription in registry.withLock({ $0.allSubscriptions }) where subscription.channel != nil {
            subscription.releaseHandles()
        }
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
        route(
            _EventEnvelope(dispatching: event, method: .queue, priority: priority), key: _routingKey(of: event),
            file: file, line: line)
    }

    /// Dispatches `event` through the stack and returns at once.
    @inlinable
    public func stack<E: Eventable>(
        _ event: E, priority: EventPriority = .normal, file: StaticString = #fileID, line: UInt = #line
    ) {
        route(
            _EventEnvelope(dispatching: event, method: .stack, priority: priority), key: _routingKey(of: event),
            file: file, line: line)
    }

    /// Dispatches `event` with the given method and priority and returns at once.
    @inlinable
    public func dispatch<E: Eventable>(
        _ event: E, method: EventDispatchMethod, priority: EventPriority = .normal, file: StaticString = #fileID,
        line: UInt = #line
    ) {
        route(
            _EventEnvelope(dispatching: event, method: method, priority: priority), key: _routingKey(of: event),
            file: file, line: line)
    }

    /// Dispatches `event` and returns once every synchronous receiver has handled it: the
    /// bus's consumers (``EventConsumer``), then the listeners registered with
    /// ``DeliveryContext/synchronous``, each in registration order, on the calling thread.
    ///
    /// Every other listener gets the event queued with `priority`, as with ``queue(_:priority:file:line:)``.
    /// A receiver may dispatch from inside its handler; that dispatch runs its own synchronous
    /// receivers before it returns.
    ///
    /// ```swift
    /// bus.listen(NavigationEvent.self, executeOn: .synchronous) { event, _ in navigate(to: event.destination) }
    /// bus.dispatchNow(NavigationEvent(destination: .screenTwo))   // navigated when this returns
    /// ```
    ///
    /// `file` and `line` say where the dispatch is, for interceptors (``EventSource``).
    @inlinable
    public func dispatchNow<E: Eventable>(
        _ event: E, priority: EventPriority = .normal, file: StaticString = #fileID, line: UInt = #line
    ) {
        route(
            _EventEnvelope(dispatching: event, method: .queue, priority: priority), key: _routingKey(of: event),
            file: file, line: line)
    }

    /// Dispatches `event` with `metadata` already made (a scheduled event, a state change).
    @inlinable @inline(__always)
    func dispatch<E: Eventable>(_ event: E, metadata: EventMetadata, site: _DispatchSite = .library) {
        route(event, key: _routingKey(of: event), metadata: metadata, site: site)
    }

    /// The dispatch path, for an event dispatched now. Every dispatch verb comes here, with the
    /// event boxed and its routing key taken by inlined generic code in the caller's module.
    ///
    /// The plain dispatch (nobody observing, no consumer) reads three words, the in-flight count
    /// and the route table, and hands the event to the route; anything else takes
    /// ``route(_:key:metadata:site:)``. No lock is taken: the route table is an immutable
    /// snapshot that stays valid while the dispatch is counted in flight (``_PublishedRoutes``),
    /// and every receiver takes its delivery without a lock of the bus.
    ///
    /// Counted in flight before the lifecycle is read, so that a shutdown (which stops accepting,
    /// then waits for the count to reach zero) waits for every dispatch that it did not reject.
    /// A bus that is not accepting asks once more, out of line, whether a graceful stop lets the
    /// dispatch through (``admitsWhileStopping(_:)``): a running bus pays nothing for it.
    @usableFromInline
    func route(_ envelope: _EventEnvelope, key: ObjectIdentifier, file: StaticString, line: UInt) {
        if _slowPath(
            counters.observation.mode.load(ordering: .relaxed) != 0
                || stores.consumers.count.load(ordering: .relaxed) != 0)
        {
            return route(
                envelope.event, key: key, metadata: envelope.metadata, site: _DispatchSite(fileID: file, line: line))
        }
        dispatches.count.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if _slowPath(!lifecycle.accepting.load(ordering: .sequentiallyConsistent))
            && !admitsWhileStopping(envelope.event)
        {
            reject(envelope)
        } else if !_RouteTable.deliver(envelope, routedBy: key, in: routes) {
            counters.settleNoReceiver(envelope)
        }
        if dispatches.count.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue == 0
            && dispatches.needsQuiescence.load(ordering: .sequentiallyConsistent) != 0
        {
            dispatches.quiesced()
        }
    }

    /// The dispatch path in full: annotates the event while the bus is observed (interceptors,
    /// or service contexts to carry), lets consumers run first on this thread, then hands it to
    /// the route of `key`.
    @usableFromInline
    func route(_ event: any Eventable, key: ObjectIdentifier, metadata: EventMetadata, site: _DispatchSite) {
        // A dispatch the bus refuses is shown to interceptors as rejected, not also as dispatched.
        let annotation =
            refusesDispatchesFromHere()
            ? counters.observation.rejectionAnnotationIfObserved(site: site)
            : counters.observation.annotationIfObserved(for: event, metadata, site: site)
        dispatches.enter()
        defer { dispatches.leave() }
        let envelope = _EventEnvelope(event: event, metadata: metadata, annotation: annotation)
        guard lifecycle.isAccepting || admitsWhileStopping(event) else { return reject(envelope) }
        let consumed = offerToConsumers({ envelope }, type: key)
        if !_RouteTable.deliver(envelope, routedBy: key, in: routes) && !consumed {
            counters.settleNoReceiver(envelope)
        }
    }

    /// Dispatches the message in `envelope` (boxed and stamped by the inlined publish, in the
    /// caller's module) to the subscribers of one labelled or keyed channel; annotated first
    /// while the bus is observed.
    @usableFromInline
    func dispatch(_ envelope: consuming _EventEnvelope, toChannel channel: _ChannelKey) {
        dispatches.enter()
        defer { dispatches.leave() }
        guard lifecycle.isAccepting || admitsWhileStopping(envelope.event) else {
            counters.rejected.add(1, ordering: .relaxed)
            counters.observation.rejected(envelope.event, metadata: envelope.metadata, site: nil)
            report(.busShutDown(bus: label, eventType: "\(channel.base)"))
            return
        }
        if _slowPath(counters.observation.isAnnotating) {
            envelope = _EventEnvelope(
                event: envelope.event, metadata: envelope.metadata,
                annotation: counters.observation.annotationIfObserved(for: envelope.event, envelope.metadata))
        }
        // Without a lock when the channel value is the one (or a copy of the one) it was
        // subscribed with; else looked up by equality, under the lock.
        if _RouteTable.deliver(envelope, routedBy: ObjectIdentifier(channel.storage), in: channelRoutes) { return }
        if let route = registry.withLock({ $0.channels[channel] }) {
            route.deliver(envelope)
        } else {
            counters.settleNoReceiver(envelope)
        }
    }

    /// Counts a dispatch refused after shutdown, and reports it; or, for the follow-up of a
    /// handler that was running when a graceful stop was cut at its deadline, discards it with
    /// the rest of what the cut stopped (counted, dead-lettered).
    func reject(_ envelope: _EventEnvelope) {
        if _slowPath(lifecycle.wasCut.load(ordering: .relaxed)) && _HandlerScope.isCurrent {
            return counters.settle(.removed, envelope)
        }
        counters.rejected.add(1, ordering: .relaxed)
        counters.observation.rejected(envelope.event, metadata: envelope.metadata, site: envelope.annotation?.site)
        let error = EventDrivenError.busShutDown(bus: label, eventType: String(reflecting: type(of: envelope.event)))
        _ = _DispatchFailures.current?.record(error)
        report(error)
    }

}

extension EventBus: _SubscriptionRegistrar {
    var observation: _Observation? { counters.observation }
}

extension Eventable {
    /// Dispatches this event through the queue of `bus`.
    @inlinable
    public func queue(
        on bus: EventBus, priority: EventPriority = .normal, file: StaticString = #fileID, line: UInt = #line
    ) {
        bus.route(
            _EventEnvelope(dispatching: self, method: .queue, priority: priority), key: _routingKey(of: self),
            file: file, line: line)
    }

    /// Dispatches this event through the stack of `bus`.
    @inlinable
    public func stack(
        on bus: EventBus, priority: EventPriority = .normal, file: StaticString = #fileID, line: UInt = #line
    ) {
        bus.route(
            _EventEnvelope(dispatching: self, method: .stack, priority: priority), key: _routingKey(of: self),
            file: file, line: line)
    }

    /// Dispatches this event on `bus` and returns once every synchronous receiver has handled
    /// it; see ``EventBus/dispatchNow(_:priority:file:line:)``.
    @inlinable
    public func dispatchNow(
        on bus: EventBus = EventCentral.shared, priority: EventPriority = .normal, file: StaticString = #fileID,
        line: UInt = #line
    ) {
        bus.route(
            _EventEnvelope(dispatching: self, method: .queue, priority: priority), key: _routingKey(of: self),
            file: file, line: line)
    }
}

/// The routing key of `event`: its exact dynamic type. Only a class instance can be of a subtype
/// of its static type, so the dynamic type is looked up only for classes; for a struct or an
/// enum the static type is the key, without a runtime call.
@inlinable
func _routingKey<E: Eventable>(of event: E) -> ObjectIdentifier {
    E.self is AnyClass ? ObjectIdentifier(type(of: event)) : ObjectIdentifier(E.self)
}

extension EventMetadata {
    /// The metadata of an event dispatched now (not scheduled), stamped with the event clock
    /// (`DispatchTime._eventNow`), which it reads itself: every dispatch comes here.
    @inlinable
    init(dispatchedNow method: EventDispatchMethod, priority: EventPriority) {
        #if canImport(Glibc) || canImport(Musl)
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            self.dispatchNanoseconds = UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
        #else
            self.dispatchNanoseconds = DispatchTime.now().uptimeNanoseconds
        #endif
        self.scheduledNanoseconds = .max
        self.priority = priority
        self.method = method
    }
}

extension _EventEnvelope {
    /// The envelope of an event dispatched now: stamped with the event clock, no sequence number
    /// yet, no annotation. Inlined into the dispatching code, which boxes the event straight into
    /// the envelope: the out-of-line dispatch then takes no existential argument of its own to
    /// copy, open or destroy.
    @inlinable
    init(dispatching event: consuming any Eventable, method: EventDispatchMethod, priority: EventPriority) {
        self.event = event
        self.metadata = EventMetadata(dispatchedNow: method, priority: priority)
        self.annotation = nil
        self.sequenceHigh = 0
        self.sequenceLow = 0
    }
}

extension DispatchTime {
    /// The current time, for stamping events: the same clock as `DispatchTime.now()`.
    ///
    /// On Linux `DispatchTime` counts `CLOCK_MONOTONIC` nanoseconds, so the clock is read directly,
    /// without libdispatch's general-purpose time function: every dispatch reads it once.
    @inlinable
    static var _eventNow: DispatchTime {
        #if canImport(Glibc) || canImport(Musl)
            return DispatchTime(uptimeNanoseconds: _eventNanoseconds)
        #else
            return .now()
        #endif
    }

    /// ``_eventNow`` in uptime nanoseconds, read without making a `DispatchTime`. (A dispatch
    /// reads the same clock in ``EventMetadata/init(dispatchedNow:priority:)``, written out there.)
    @inlinable
    static var _eventNanoseconds: UInt64 {
        #if canImport(Glibc) || canImport(Musl)
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
        #else
            return DispatchTime.now().uptimeNanoseconds
        #endif
    }
}
