// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Carries events of registered types between a local `EventBus` and a
/// broker, so that several processes share a bus.
///
/// ```swift
/// let events = NATSEventRegistry()
/// try events.register(OrderPlaced.self, name: "orders.placed", version: 1)
/// let bridge = try NATSBridge(bus: bus, events: events, server: "nats://127.0.0.1:4222")
/// try bridge.export(OrderPlaced.self)                                  // local dispatches go out too
/// try bridge.listen(OrderPlaced.self, mode: .group("workers")) { order, delivery in … }
/// try await ServiceGroup(services: [bridge], logger: logger).run()    // or: try await bridge.run()
/// ```
///
/// It is a swift-service-lifecycle `Service`: ``run()`` connects, creates or checks the stream
/// and consumers, and imports until graceful shutdown (or ``shutdown()``); it then stops
/// fetching, handles and acknowledges what it holds, waits for pending publish acks, and closes.
public final class NATSBridge: Service, Sendable {
    enum Phase: Sendable { case idle, starting, running, stopping, stopped }

    struct State: Sendable {
        var phase = Phase.idle
        var importers: [_Importer] = []
        var exportHandles: [EventListenerHandle] = []
        var readyWaiters: [CheckedContinuation<Void, any Error>] = []
        var startError: (any Error)?
        var stopWaiter: CheckedContinuation<Void, Never>?
        var stopRequested = false
        var errorHandler: (@Sendable (NATSBridgeError) -> Void)?
        var deadLetterObservers: [Int: AsyncStream<NATSDeadLetter>.Continuation] = [:]
        var nextObserver = 0
        /// What closed the connection for good while running.
        var failure: NATSError?
    }

    /// The local bus.
    public let bus: EventBus
    /// The types it carries.
    public let events: NATSEventRegistry
    /// Names, storage, consumer and retry settings.
    public let configuration: NATSBridgeConfiguration
    /// The broker.
    public let transport: any EventTransport
    let logger: Logger
    let counters = _BridgeCounters()
    let state = NIOLockedValueBox(State())
    /// Whether publishes are taken: read by the exporter on every export, set with the phase.
    let gate = _PublishGate()
    private let exporterBox = NIOLockedValueBox<_Exporter?>(nil)

    /// A bridge over any transport.
    public init(
        bus: EventBus, events: NATSEventRegistry, configuration: NATSBridgeConfiguration = .init(),
        transport: any EventTransport, logger: Logger = Logger(label: "EventDrivenSwiftNATS")
    ) {
        self.bus = bus
        self.events = events
        self.configuration = configuration
        self.transport = transport
        self.logger = logger
    }

    /// A bridge over NATS JetStream at `server` (`nats://host:port`, `tls://…`, with
    /// `user:password@` or `token@` when needed), or at several servers of a cluster,
    /// comma-separated (`nats://a:4222,nats://b:4222`).
    /// - Throws: ``NATSBridgeError/invalidConfiguration(_:)`` for a configuration that
    ///   ``NATSBridgeConfiguration/validate()`` refuses; ``NATSError/invalidArgument(_:)`` for a
    ///   server string that is not one.
    public convenience init(
        bus: EventBus, events: NATSEventRegistry, server: String, configuration: NATSBridgeConfiguration = .init(),
        logger: Logger = Logger(label: "EventDrivenSwiftNATS")
    ) throws {
        try configuration.validate()
        let client = NATSClient(configuration: try NATSClientConfiguration(server: server), logger: logger)
        self.init(
            bus: bus, events: events, configuration: configuration,
            transport: NATSJetStreamTransport(client: client, configuration: configuration), logger: logger)
    }

    /// What it has carried and what it could not.
    public var statistics: NATSBridgeStatistics {
        var statistics = counters.snapshot
        statistics.droppedAdvisories = transport.droppedExhaustedDeliveries
        return statistics
    }

    var exporter: _Exporter {
        exporterBox.withLockedValue { box in
            if let exporter = box { return exporter }
            let exporter = _Exporter(
                transport: transport, configuration: configuration, counters: counters, gate: gate,
                report: { [weak self] in self?.report($0) })
            box = exporter
            return exporter
        }
    }

    // MARK: Export

    /// Publishes every event of `type` dispatched on the bus, after it was handed to the local
    /// listeners (local dispatch and export both happen). Events the bridge imported are not
    /// exported again.
    /// - Throws: ``NATSBridgeError/unregisteredEventType(_:)``.
    public func export<E: Eventable & Codable>(_ type: E.Type) throws {
        let exporter = self.exporter
        let template = exporter.template(for: try events.entry(for: type))
        let handle = bus.listen(type, executeOn: .synchronous) { @Sendable event, _ in
            guard !_ImportMarker.isImporting else { return }
            exporter.export(event, template)
        }
        state.withLockedValue { $0.exportHandles.append(handle) }
    }

    /// Publishes `event` without dispatching it locally (export instead of local dispatch).
    /// Returns at once; the acknowledgement is awaited in the background, counted, and a publish
    /// that fails every attempt is reported to the error handler. One that can never succeed
    /// fails at once, counted and reported the same way: on a bridge whose ``run()`` has ended
    /// (``NATSBridgeError/notRunning``), or larger than the server's `max_payload`
    /// (``NATSBridgeError/publishFailed(messageID:event:reason:)``). One made before ``run()`` is
    /// called waits for the connection within the retry window.
    /// - Throws: ``NATSBridgeError/unregisteredEventType(_:)``.
    public func publish<E: Eventable & Codable>(_ event: E) throws {
        exporter.export(event, entry: try events.entry(for: E.self))
    }

    /// Publishes `event` without dispatching it locally and returns once the broker stored it.
    /// - Throws: ``NATSBridgeError/publishFailed(messageID:event:reason:)`` after every attempt,
    ///   or at once for an event larger than the server's `max_payload`;
    ///   ``NATSBridgeError/notRunning`` at once on a bridge whose ``run()`` has ended (before
    ///   ``run()`` is called, the publish waits for the connection within the retry window).
    public func publishAndWait<E: Eventable & Codable>(_ event: E) async throws {
        let entry = try events.entry(for: E.self)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            exporter.export(event, entry: entry) { continuation.resume(with: $0.mapError { $0 }) }
        }
    }

    /// Returns once every publish so far has been acknowledged or reported.
    public func waitForExports() async {
        await exporter.waitUntilInFlight(below: 1)
    }

    /// Returns once fewer than `limit` publishes wait for their acknowledgement: a producer's
    /// flow control. Choose a `limit` the server acknowledges well within
    /// ``NATSBridgeConfiguration/Consumers/publishTimeout``: a publish's timeout runs from its
    /// send, so one behind thousands of others on a loaded machine may outlast it and be sent
    /// again (a duplicate the server drops, counted in ``NATSBridgeStatistics/duplicates``).
    /// In `MultiProcessTests`' broker restart, all processes built with ThreadSanitizer on two
    /// cores, 20,000 events with 4,096 gave 8,266 duplicates and 284 publishes reported failed;
    /// with 512, 168 duplicates (the restart's own included) and none failed.
    public func waitForExports(below limit: Int) async {
        await exporter.waitUntilInFlight(below: max(1, limit))
    }

    // MARK: Import

    /// Dispatches every imported event of `type` on the bus, like a local one. A fetched batch is
    /// acknowledged once the bus has drained it (every local handler finished). Errors thrown by
    /// bus listeners stay local (counted and reported by the bus); use
    /// ``listen(_:mode:handler:)`` for retries and dead letters driven by a handler. An event the
    /// bus refuses because it was shut down is sent back without delay (`-NAK`) for another
    /// process, counted in ``NATSBridgeStatistics/refusedByBus``, and the import of `type` stops.
    /// So is the whole batch when the bus was shut down while it ran and discarded events unhandled
    /// meanwhile (an immediate shutdown discards what waits in its receivers): which of the
    /// batch's events those were is not known here, so its handled events come again too (at
    /// least once, never lost).
    ///
    /// An event that a receiver's full bounded mailbox refuses (`EventDrivenError.Code.mailboxFull`:
    /// a `.failDispatch` receiver) still reaches the bus's other receivers, and its message is
    /// acknowledged with its batch like any other: it is not sent back, which would give it
    /// again to the receivers that took it. So the refusing receiver never gets it: the bus
    /// counts that copy in its `statistics.dropped` and posts it to its `deadLetters()` (reason
    /// `.dropped`), and the bridge counts it in ``NATSBridgeStatistics/refusedByFullMailbox`` and
    /// logs it (the bus's error handler does not see it).
    ///
    /// The events are dispatched from a dispatch queue of this import's own, not from a task: a
    /// receiver with `EventOverflowPolicy.blockProducer(timeout:)` makes the dispatch wait for
    /// room, and that wait holds one of libdispatch's threads, never one of Swift's cooperative
    /// pool. The bus's `.synchronous` listeners of `type` run on that queue.
    public func importEvents<E: Eventable & Codable>(_ type: E.Type, mode: NATSImportMode) throws {
        let (bus, counters, logger) = (self.bus, self.counters, self.logger)
        let dispatching = _ImportDispatch(label: "EventDrivenSwiftNATS.import.\(E.self)")
        try addImporter(type, mode: mode) { batch in
            let discardedBefore = bus.statistics.discarded
            let refused = await dispatching.dispatch(batch, as: E.self, on: bus, counters: counters, logger: logger)
            // Sent back at once: no handler saw them (a slot finished twice is concluded once).
            for index in refused { batch.finish(index, _RefusedByBus()) }
            await bus.drain()
            // Discards by a bus that is not shut down are a closed receiver's (a cancelled
            // EventThread): its loss, counted by the bus, as for any dispatch.
            let cut = bus.isShutDown && bus.statistics.discarded != discardedBefore
            for index in batch.items.indices { batch.finish(index, cut ? _RefusedByBus() : nil) }
        }
    }

    /// Runs `handler` on the bus for every imported event of `type`: one event at a time, in the
    /// order they arrived (a bus async listener). Each message is acknowledged as soon as its
    /// handler returns; while a message waits for its handler or is in it, the bridge tells the
    /// server (`+WPI`) every third of the ack wait, so that it is not given to another process. When the handler
    /// throws, the message is sent back (`-NAK`) with the configured delay and redelivered, and on
    /// its last delivery dead-lettered, then terminated. A delivery the bus refuses because it
    /// was shut down, or discards unhandled, is sent back without delay (`-NAK`), counted in
    /// ``NATSBridgeStatistics/refusedByBus``, and the import stops. The listener's queue has no
    /// bound, so no full mailbox keeps a delivery from its handler. Each call imports on its own: two
    /// `listen`s of one type (a `.broadcast` and a `.group`, say) each see their own deliveries only.
    public func listen<E: Eventable & Codable>(
        _ type: E.Type, mode: NATSImportMode,
        handler: @escaping @Sendable (E, NATSDeliveryInfo) async throws -> Void
    ) throws {
        // Refuse before the bus listener exists, so a refused registration leaves nothing behind.
        _ = try events.entry(for: type)
        try Self.validate(mode)
        let (bus, counters, logger) = (self.bus, self.counters, self.logger)
        // Every listener of `_BridgedDelivery<E>` sees every one: the route keeps each to its own.
        let route = _Route()
        bus.listenAsync(_BridgedDelivery<E>.self) { @Sendable delivery in
            guard delivery.route === route else { return }
            do {
                try await handler(delivery.event, delivery.info)
                delivery.settlement.finish(nil)
            } catch {
                delivery.settlement.finish(error)
                throw error
            }
        }
        try addImporter(type, mode: mode) { batch in
            for index in batch.items.indices {
                let item = batch.items[index]
                let delivery = _BridgedDelivery(
                    event: item.event as! E, info: item.info, settlement: batch.settlement(index), route: route)
                // A delivery the bus refuses (shut down) reaches no handler: it is sent back here.
                // A full mailbox is never the listener's own (see `busRefuses`): it has the delivery.
                if Self.busRefuses(delivery, on: bus, counters: counters, logger: logger) {
                    batch.finish(index, _RefusedByBus())
                }
            }
        }
    }

    /// Dispatches `event` on `bus` (queued, like `bus.queue`), and returns `true` when the bus
    /// refused it because it is shut down or shutting down.
    ///
    /// A receiver's full bounded mailbox (`.mailboxFull`, the only other refusal `tryDispatch`
    /// throws) refused its own copy only: the other receivers took the event, and the bus
    /// counted the refused copy (`statistics.dropped`, a `.dropped` dead letter). `tryDispatch`
    /// throws that refusal to its caller instead of the bus's error handler, so it is counted
    /// in ``NATSBridgeStatistics/refusedByFullMailbox`` and logged here (the first, then every
    /// 1,000th). For ``listen(_:mode:handler:)``'s deliveries it is never the bridge's own
    /// listener: an async listener's queue has no bound, and it took the delivery.
    static func busRefuses<E: Eventable>(
        _ event: E, on bus: EventBus, counters: _BridgeCounters, logger: Logger
    ) -> Bool {
        do throws(EventDrivenError) {
            try bus.tryDispatch(event)
            return false
        } catch {
            if error.code == .busShutDown { return true }
            let refusals = counters.refusedByFullMailbox.add(1, ordering: .relaxed).newValue
            if refusals % 1_000 == 1 {
                logger.warning(
                    "an imported event did not reach every receiver on the bus (\(refusals) so far): \(error)")
            }
            return false
        }
    }

    private func addImporter<E: Eventable & Codable>(
        _ type: E.Type, mode: NATSImportMode, settle: @escaping @Sendable (_BatchSettlement) async -> Void
    ) throws {
        let entry = try events.entry(for: type)
        try Self.validate(mode)
        let importer = _Importer(
            entry: entry, mode: mode, transport: transport, configuration: configuration, counters: counters,
            logger: logger, deadLetter: { [weak self] in self?.postDeadLetter($0) }, settle: settle)
        let isRunning = state.withLockedValue { state -> Bool in
            state.importers.append(importer)
            return state.phase == .running
        }
        if isRunning { Task { await importer.run { _ in } } }
    }

    /// Checks the group or instance name of `mode` (it becomes part of a durable name: no dots).
    private static func validate(_ mode: NATSImportMode) throws {
        switch mode {
        case .broadcast: return
        case .group(let name), .durableBroadcast(let name):
            guard NATSEventRegistry.isValidName(name), !name.contains(".") else {
                throw NATSBridgeError.invalidEventName(name)
            }
        }
    }

    // MARK: Reports

    /// The messages this bridge dead-letters from now on (also published on
    /// `<prefix>.deadletter.<name>`, and posted to the bus's `deadLetters()` with reason
    /// `.failed`). Ends when the bridge stops.
    ///
    /// The stream holds at most ``defaultDeadLetterLimit`` (1,024) letters its reader has not
    /// taken yet (see ``deadLetters(limit:)``).
    public func deadLetters() -> AsyncStream<NATSDeadLetter> {
        deadLetters(limit: Self.defaultDeadLetterLimit)
    }

    /// How many letters a ``deadLetters()`` stream holds for its reader at most: 1,024.
    public static let defaultDeadLetterLimit = 1_024

    /// ``deadLetters()`` holding at most `limit` letters (at least 1) its reader has not taken
    /// yet. A letter that arrives when the stream is full is not held for it: counted in
    /// ``NATSBridgeStatistics/deadLettersDropped`` and logged (the first time, then every
    /// 1,000th). Each letter carries a body of up to the server's `max_payload`, so a reader
    /// that falls behind costs at most `limit` of them.
    public func deadLetters(limit: Int) -> AsyncStream<NATSDeadLetter> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: NATSDeadLetter.self, bufferingPolicy: .bufferingOldest(max(1, limit)))
        let id = state.withLockedValue { state in
            defer { state.nextObserver += 1 }
            state.deadLetterObservers[state.nextObserver] = continuation
            return state.nextObserver
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLockedValue { $0.deadLetterObservers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Receives every ``NATSBridgeError`` the bridge reports while running (failed publishes,
    /// dead letters); they are logged as well.
    public func setErrorHandler(_ handler: (@Sendable (NATSBridgeError) -> Void)?) {
        state.withLockedValue { $0.errorHandler = handler }
    }

    func report(_ error: NATSBridgeError) {
        logger.error("\(error)")
        state.withLockedValue { $0.errorHandler }?(error)
    }

    /// Reports a terminated message to the error handler, this bridge's ``deadLetters()`` and the
    /// bus's `deadLetters()` (there as a ``NATSDeadLetter`` with reason `.failed`, not counted in
    /// the bus's statistics: the bus never dispatched it).
    private func postDeadLetter(_ letter: NATSDeadLetter) {
        report(.deadLettered(messageID: letter.messageID ?? "-", event: letter.eventName, reason: letter.reason))
        let observers = state.withLockedValue { Array($0.deadLetterObservers.values) }
        for observer in observers {
            guard case .dropped = observer.yield(letter) else { continue }
            let dropped = counters.deadLettersDropped.add(1, ordering: .relaxed).newValue
            if dropped % 1_000 == 1 {
                logger.warning("a deadLetters() stream is full: \(dropped) letters not held for their reader so far")
            }
        }
        bus.postDeadLetter(letter, reason: .failed)
    }
}

/// An imported event on its way to a ``NATSBridge/listen(_:mode:handler:)`` handler on the bus.
struct _BridgedDelivery<E: Eventable>: Eventable {
    let event: E
    let info: NATSDeliveryInfo
    let settlement: _Settlement
    /// The ``NATSBridge/listen(_:mode:handler:)`` call it belongs to.
    let route: _Route
}

/// The identity of one ``NATSBridge/listen(_:mode:handler:)`` call.
final class _Route: Sendable {}

/// The outcome of a delivery that the local bus refused because it was shut down: the importer
/// sends it back at once and stops importing.
struct _RefusedByBus: Error {}
