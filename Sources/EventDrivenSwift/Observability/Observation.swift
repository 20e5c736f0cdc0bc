// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import ServiceContextModule
import Synchronization

/// The interceptors of one bus, and the one place the dispatch path and every receiver report to
/// them.
///
/// While none is installed and the bus does not propagate service contexts, the dispatch path
/// pays one relaxed load for them, and a delivery one check of its metadata for `nil`.
@usableFromInline
final class _Observation: Sendable {
    let busLabel: String
    /// The bus's number in this process: dispatch numbers are per bus, so a recorder added to
    /// several buses tells their dispatches apart by it (labels may repeat).
    let busID: UInt64
    private static let nextBusID = Atomic<UInt64>(0)
    /// ``Mode`` bits: what a dispatch must do beyond routing.
    @usableFromInline
    let mode = Atomic<UInt8>(0)
    private let installed = LockedValue(_InstalledInterceptors())
    private let nextDispatchID = Atomic<UInt64>(0)
    /// `String(reflecting:)` of each event type seen: demangling a name costs thousands of
    /// instructions, so it is done once per type.
    private let typeNames = LockedValue<[ObjectIdentifier: String]>([:])

    func typeName(of event: any Eventable) -> String {
        let type = type(of: event)
        if let name = typeNames.withLock({ $0[ObjectIdentifier(type)] }) { return name }
        let name = String(reflecting: type)
        typeNames.withLock { $0[ObjectIdentifier(type)] = name }
        return name
    }

    init(busLabel: String) {
        self.busLabel = busLabel
        self.busID = Self.nextBusID.add(1, ordering: .relaxed).newValue
    }

    /// The bits of ``mode``.
    private enum Mode {
        /// Capture the service context current at dispatch.
        static let propagatesContext: UInt8 = 1
        /// Report to interceptors (and capture the context too).
        static let intercepted: UInt8 = 2
    }

    /// Whether a dispatch must annotate its event's metadata before routing it.
    @inlinable
    var isAnnotating: Bool { mode.load(ordering: .relaxed) != 0 }

    /// Whether any interceptor is installed.
    @inline(__always)
    var isActive: Bool { mode.load(ordering: .relaxed) & Mode.intercepted != 0 }

    /// Whether dispatches carry the service context to their handlers (interceptors see it either way).
    var propagatesContext: Bool {
        get { mode.load(ordering: .relaxed) & Mode.propagatesContext != 0 }
        set {
            installed.withLock { _ in
                let current = mode.load(ordering: .relaxed)
                let bit = Mode.propagatesContext
                mode.store(newValue ? current | bit : current & ~bit, ordering: .relaxed)
            }
        }
    }

    /// Sets or clears the interceptor bit; called under `installed`'s lock.
    private func setIntercepted(_ isIntercepted: Bool) {
        let current = mode.load(ordering: .relaxed)
        mode.store(isIntercepted ? current | Mode.intercepted : current & ~Mode.intercepted, ordering: .relaxed)
    }

    /// The interceptors now installed, in the order they were added.
    /// The interceptors users added (the library's own did-consume notices left out).
    var interceptors: [any EventInterceptor] {
        installed.withLock { $0.list.interceptors }.filter { !($0 is _ConsumptionNotices) }
    }

    /// Installs `interceptor`; returns the token that removes it.
    func add(_ interceptor: any EventInterceptor) -> Int {
        installed.withLock { installed in
            let token = installed.nextToken
            installed.nextToken += 1
            installed.entries.append((token, interceptor, _Removal()))
            installed.list = _InterceptorList(installed.entries)
            setIntercepted(true)
            return token
        }
    }

    /// Removes the interceptor `token` names; returns it, or `nil` if it was removed already.
    func remove(_ token: Int) -> (any EventInterceptor)? {
        let (removed, list) = installed.withLock { installed -> ((any EventInterceptor)?, _InterceptorList) in
            guard let index = installed.entries.firstIndex(where: { $0.0 == token }) else {
                return (nil, installed.list)
            }
            let (_, removed, removal) = installed.entries.remove(at: index)
            // A dispatch that took the list before this removal skips it from now on.
            removal.isRemoved.store(true, ordering: .releasing)
            let list = installed.list
            installed.list = _InterceptorList(installed.entries)
            setIntercepted(!installed.entries.isEmpty)
            return (removed, list)
        }
        // The previous list is released here, outside the lock: an interceptor's deinit is user code.
        _ = consume list
        return removed
    }

    private var list: _InterceptorList { installed.withLock { $0.list } }

    // MARK: Dispatch

    /// What a dispatch adds to its event's metadata: the service context current here, and,
    /// while observed, the dispatch's number and the interceptors' context. `nil` for neither.
    /// Reading the task-local context costs more than the rest of a dispatch, hence the opt-in.
    @usableFromInline
    func annotation(for event: any Eventable, _ metadata: EventMetadata, site: _DispatchSite) -> _DispatchAnnotation? {
        if !isActive {
            guard let context = ServiceContext.current else { return nil }
            return _DispatchAnnotation(serviceContext: context)
        }
        // A dispatch after shutdown is reported as rejected, not as a dispatch: the annotation
        // only says where it was made.
        guard !isClosed.load(ordering: .relaxed) else { return _DispatchAnnotation(serviceContext: nil, site: site) }
        let id = nextDispatchID.add(1, ordering: .relaxed).newValue
        let info = EventDispatchInfo(
            busLabel: busLabel, event: event, eventType: typeName(of: event), metadata: metadata, dispatchID: id,
            source: Self.source(of: site), busID: busID)
        var context = ServiceContext.current ?? .topLevel
        list.forEachInstalled { $0.didDispatch(info, context: &context) }
        return _DispatchAnnotation(
            serviceContext: context.isEmpty ? nil : context, propagatesContext: propagatesContext, dispatchID: id,
            site: site)
    }

    /// ``annotation(for:_:site:)`` while the bus is observed, `nil` otherwise (one relaxed
    /// load): the record of a dispatch that builds its own envelope instead of routing by type,
    /// a channel's message or a state's change, so that it is a dispatch like any other.
    func annotationIfObserved(
        for event: any Eventable, _ metadata: EventMetadata, site: _DispatchSite = .library
    ) -> _DispatchAnnotation? {
        isAnnotating ? annotation(for: event, metadata, site: site) : nil
    }

    /// The annotation of a dispatch the bus refuses, while the bus is observed: it only says
    /// where the dispatch was made, for ``rejected(_:metadata:site:)``; no interceptor sees it as
    /// a dispatch.
    func rejectionAnnotationIfObserved(site: _DispatchSite) -> _DispatchAnnotation? {
        isAnnotating ? _DispatchAnnotation(serviceContext: nil, site: site) : nil
    }

    /// Set when the bus shuts down: later dispatches are rejected, not dispatched.
    let isClosed = Atomic<Bool>(false)

    /// Reports a dispatch refused after shutdown, made at `site` when the dispatch was annotated.
    func rejected(_ event: any Eventable, metadata: EventMetadata, site: _DispatchSite?) {
        guard isActive else { return }
        let info = EventDispatchInfo(
            busLabel: busLabel, event: event, eventType: typeName(of: event), metadata: metadata, dispatchID: 0,
            source: Self.source(of: site ?? .library), busID: busID)
        list.forEachInstalled { $0.didReject(info) }
    }

    /// Reports an event no one subscribed to, on the dispatching thread.
    func foundNoReceiver(_ envelope: _EventEnvelope) {
        let info = EventDispatchInfo(
            busLabel: busLabel, event: envelope.event, eventType: typeName(of: envelope.event),
            metadata: envelope.metadata, dispatchID: envelope.annotation?.dispatchID ?? 0,
            source: Self.source(of: envelope.annotation?.site ?? .library), busID: busID)
        list.forEachInstalled { $0.didFindNoReceiver(info) }
    }

    private static func source(of site: _DispatchSite) -> EventSource {
        EventSource(
            component: _ReceiverContext.current.map { $0.mailbox.executor.receiverName },
            fileID: site.fileID.description, line: Int(site.line))
    }

    // MARK: Delivery

    /// Runs `handler` for `envelope` on behalf of `receiver`, with the event's service context
    /// current, inside every interceptor's wrapper, and reports its outcome. Rethrows what the
    /// handler threw.
    func run(
        _ handler: () throws -> Void, for envelope: _EventEnvelope, receiver: @autoclosure () -> EventReceiver,
        consumer: (any EventConsumer)? = nil
    ) throws {
        let context = envelope.annotation?.handlerContext
        guard isActive else { return try Self.bind(context, handler) }
        let interceptors = list.interceptors
        let delivery = EventDeliveryInfo(
            busLabel: busLabel, busID: busID, event: envelope.event, eventType: typeName(of: envelope.event),
            metadata: envelope.metadata, annotation: envelope.annotation, receiver: receiver(), consumer: consumer)
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            try Self.bind(context) { try Self.wrap(handler, in: interceptors[...], for: delivery) }
        } catch {
            report(delivery, .failed, start: start, error: error, to: interceptors)
            throw error
        }
        report(delivery, .delivered, start: start, error: nil, to: interceptors)
    }

    /// ``run(_:for:receiver:)`` for an async handler.
    func run(
        _ handler: () async throws -> Void, for envelope: _EventEnvelope, receiver: EventReceiver
    ) async throws {
        let context = envelope.annotation?.handlerContext
        guard isActive else { return try await Self.bind(context, handler) }
        let interceptors = list.interceptors
        let delivery = EventDeliveryInfo(
            busLabel: busLabel, busID: busID, event: envelope.event, eventType: typeName(of: envelope.event),
            metadata: envelope.metadata, annotation: envelope.annotation, receiver: receiver)
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            try await Self.bind(context) { try await Self.wrapAsync(handler, in: interceptors[...], for: delivery) }
        } catch let released as _OwnerReleasedBeforeHandler {
            // Not a failure: the listener counts it `ownerReleased`, which reports it (`settled`).
            throw released
        } catch {
            report(delivery, .failed, start: start, error: error, to: interceptors)
            throw error
        }
        report(delivery, .delivered, start: start, error: nil, to: interceptors)
    }

    /// Runs `body` with `context` current, or as it is when there is none (a context current
    /// where the handler runs, such as a synchronous one's dispatching thread, stays current).
    private static func bind(_ context: ServiceContext?, _ body: () throws -> Void) throws {
        guard let context else { return try body() }
        try ServiceContext.withValue(context) { try body() }
    }

    private static func bind(_ context: ServiceContext?, _ body: () async throws -> Void) async throws {
        guard let context else { return try await body() }
        try await ServiceContext.$current.withValue(context) { try await body() }
    }

    private static func wrap(
        _ handler: () throws -> Void, in interceptors: ArraySlice<any EventInterceptor>, for delivery: EventDeliveryInfo
    ) throws {
        guard let first = interceptors.first else { return try handler() }
        try first.wrapHandler(for: delivery) { try wrap(handler, in: interceptors.dropFirst(), for: delivery) }
    }

    private static func wrapAsync(
        _ handler: () async throws -> Void, in interceptors: ArraySlice<any EventInterceptor>,
        for delivery: EventDeliveryInfo
    ) async throws {
        guard let first = interceptors.first else { return try await handler() }
        try await first.wrapAsyncHandler(for: delivery) {
            try await wrapAsync(handler, in: interceptors.dropFirst(), for: delivery)
        }
    }

    private func report(
        _ delivery: EventDeliveryInfo, _ outcome: EventDeliveryOutcome, start: UInt64, error: (any Error)?,
        to interceptors: [any EventInterceptor]
    ) {
        let end = DispatchTime.now().uptimeNanoseconds
        let result = EventDeliveryResult(
            outcome: outcome, startNanoseconds: start, duration: .nanoseconds(Int64(end &- start)), error: error)
        for interceptor in interceptors { interceptor.didDeliver(delivery, result: result) }
    }

    /// Reports a delivery that ended without its handler running (or, for a stream, taken by
    /// its consumer).
    func settled(_ outcome: EventDeliveryOutcome, _ envelope: _EventEnvelope, receiver: EventReceiver?) {
        guard isActive else { return }
        let delivery = EventDeliveryInfo(
            busLabel: busLabel, busID: busID, event: envelope.event, eventType: typeName(of: envelope.event),
            metadata: envelope.metadata, annotation: envelope.annotation, receiver: receiver)
        let result = EventDeliveryResult(outcome: outcome, startNanoseconds: nil, duration: nil, error: nil)
        list.forEachInstalled { $0.didDeliver(delivery, result: result) }
    }
}

/// The installed interceptors, with their tokens, and the list deliveries read.
private struct _InstalledInterceptors {
    var nextToken = 0
    var entries: [(Int, any EventInterceptor, _Removal)] = []
    var list = _InterceptorList([])
}

/// Whether an interceptor was removed, for the lists taken before its removal.
private final class _Removal: Sendable {
    let isRemoved = Atomic<Bool>(false)
}

/// An immutable list of interceptors: readers take it under the lock and call it outside.
///
/// A dispatch can be held inside one interceptor's call (its `didDispatch` blocks) while a
/// later one is removed: ``forEachInstalled(_:)`` skips it then, so that nothing reaches an
/// interceptor once its removal has returned. A delivery already running keeps the list it
/// took and finishes through every interceptor in it (``EventInterceptorHandle/cancel()``).
private final class _InterceptorList: Sendable {
    let interceptors: [any EventInterceptor]
    private let removals: [_Removal]

    init(_ entries: [(Int, any EventInterceptor, _Removal)]) {
        interceptors = entries.map(\.1)
        removals = entries.map(\.2)
    }

    /// Calls `body` with each interceptor of the list that has not been removed since.
    func forEachInstalled(_ body: (any EventInterceptor) -> Void) {
        for (interceptor, removal) in zip(interceptors, removals)
        where !removal.isRemoved.load(ordering: .acquiring) {
            body(interceptor)
        }
    }
}
