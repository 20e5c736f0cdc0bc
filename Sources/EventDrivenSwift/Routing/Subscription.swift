// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// Where subscriptions are registered: a bus, or a pool standing between the bus and its threads.
protocol _SubscriptionRegistrar: AnyObject, Sendable {
    func register(_ subscription: _Subscription)
    func unregister(_ subscription: _Subscription)
    /// The interceptors of the bus whose events the subscription receives.
    var observation: _Observation? { get }
    /// The kind of receiver a subscription registered here is, when the registrar decides it
    /// (a pool's threads); `nil` to let the subscription's target decide.
    var registeredReceiverKind: EventReceiverKind? { get }
}

extension _SubscriptionRegistrar {
    var registeredReceiverKind: EventReceiverKind? { nil }
}

/// Which deliveries a listener wants, checked when the delivery is about to run.
enum _Interest: Sendable {
    case all
    case latestOnly(_LatestTracker)
    case youngerThan(nanoseconds: UInt64)
    case custom(_EventFilter)
    /// A state's subscriber: the gate admits a value newer than every value it was handed (its
    /// version is the envelope's sequence number); an older one was overtaken, and is counted as
    /// superseded.
    case newerThanHanded(_StateGate)
}

/// A user filter, run on the subscription's own serial context.
struct _EventFilter: Sendable {
    let accepts: @Sendable (any Eventable, EventMetadata) -> Bool
}

/// The newest sequence number dispatched for one event type on one bus.
final class _LatestTracker: Sendable {
    private let latest = Atomic<UInt64>(0)

    func advance() -> UInt64 { latest.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue }
    var current: UInt64 { latest.load(ordering: .sequentiallyConsistent) }
}

/// One registered handler for one event type: a listener, or a callback of an EventThread.
///
/// The handler is a `@Sendable` user closure, invoked from the context `target` names: one
/// drain at a time for a mailbox; concurrently for `.taskThread` and `.synchronous`, which its
/// `@Sendable` type makes safe. The subscription hands its deliveries to `target` (see
/// ``_DeliveryTarget``), which calls ``deliver(_:)`` when the handler is to run.
// @unchecked Sendable: only because of the weak lets `owner` and `registrar` (atomic in the runtime); the rest is immutable or atomic
final class _Subscription: @unchecked Sendable {
    // The reference count, in the object's header, takes the dispatching thread's retain for
    // every queued event, while the drainer reads the fields below for every delivery: they start
    // a cache line further (``_CacheLinePadding``).
    private let afterHeader = _CacheLinePadding()
    let eventType: ObjectIdentifier
    let eventTypeName: String
    /// The event type itself, so that a pool can subscribe to the bus for the types its threads register.
    let eventMetatype: any Eventable.Type
    /// The channel within the event type, for labelled or keyed channels; `nil` for plain events.
    let channel: _ChannelKey?
    /// `channel != nil`, read without copying the key.
    let isChannelSubscription: Bool
    weak let owner: AnyObject?
    let hasOwner: Bool
    /// Where deliveries go: a mailbox, the dispatching thread, a task, a pool, a stream.
    let target: any _DeliveryTarget
    /// The target when it is a mailbox, so that a route of mailboxes and a pool reach it
    /// without a cast.
    let mailbox: _Mailbox?
    let interest: _Interest
    weak let registrar: (any _SubscriptionRegistrar)?
    private let handler: @Sendable (any Eventable, EventMetadata) throws -> Void
    /// Where an error the handler throws is reported.
    private let failures: _FailureReport?
    /// The bus's interceptors and the kind of receiver this is, for them.
    private let observation: _Observation?
    /// No owner and every event wanted: ``deliver(_:)`` checks neither.
    private let isPlain: Bool
    /// Whether an annotated event's delivery goes through the interceptors (``isObserved(_:)``):
    /// there are some, and the handler is the user's (not ``_ErasedHandler/empty``, whose sink
    /// runs the user's code itself).
    private let observes: Bool
    private let registrarReceiverKind: EventReceiverKind?
    private let knownReceiver = LockedValue<EventReceiver?>(nil)
    private let active = Atomic<Bool>(true)
    /// What ``whenEnded(_:)`` asked to run when the subscription ends.
    private let onEnd = LockedValue<(@Sendable () -> Void)?>(nil)

    convenience init<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject?,
        target: any _DeliveryTarget,
        interest: _Interest,
        channel: _ChannelKey? = nil,
        registrar: any _SubscriptionRegistrar,
        handler: @escaping @Sendable (E, EventMetadata) -> Void
    ) {
        self.init(
            type, owner: owner, target: target, interest: interest, channel: channel, registrar: registrar,
            handlers: _ErasedHandler(handler))
    }

    /// A subscription whose `handlers` are only ever given events of exactly `type` (routing is
    /// by exact dynamic type).
    init(
        _ type: any Eventable.Type,
        owner: AnyObject?,
        target: any _DeliveryTarget,
        interest: _Interest,
        channel: _ChannelKey? = nil,
        registrar: any _SubscriptionRegistrar,
        handlers: _ErasedHandler
    ) {
        self.eventType = ObjectIdentifier(type)
        self.channel = channel
        self.isChannelSubscription = channel != nil
        self.eventTypeName = String(reflecting: type)
        self.eventMetatype = type
        self.owner = owner
        self.hasOwner = owner != nil
        self.target = target
        self.mailbox = target as? _Mailbox
        self.interest = interest
        self.registrar = registrar
        self.handler = handlers.handler
        self.failures = handlers.failures
        self.observation = registrar.observation
        self.registrarReceiverKind = registrar.registeredReceiverKind
        if case .all = interest { self.isPlain = owner == nil } else { self.isPlain = false }
        self.observes = handlers.runsHandler && registrar.observation != nil
    }

    var isActive: Bool { active.load(ordering: .acquiring) }

    /// Whether this subscription receives ``DidConsumeEvent``s, which a bus dispatches only
    /// while someone wants them.
    var isForConsumptionNotices: Bool { channel == nil && eventType == ObjectIdentifier(DidConsumeEvent.self) }

    /// `true` when deliveries wait in a receiver's D3 lanes (see ``_DeliveryTarget/usesLanes``).
    var usesLanes: Bool { target.usesLanes }

    /// Stops further deliveries and unregisters; safe from any thread, any number of times.
    func cancel() {
        guard active.exchange(false, ordering: .acquiringAndReleasing) else { return }
        registrar?.unregister(self)
        ended()
    }

    /// Stops further deliveries of a subscription that its registry has already dropped.
    func cancelWithoutUnregistering() {
        active.store(false, ordering: .releasing)
        ended()
    }

    /// Calls `body` once the subscription has ended (at once if it has): how a listener's handle
    /// learns to let go of it (``EventListenerHandle``). One body per subscription.
    func whenEnded(_ body: @escaping @Sendable () -> Void) {
        onEnd.withLock { $0 = body }
        // After the store: an end that came first is seen here; one that comes later sees `body`.
        if !isActive { ended() }
    }

    /// Runs what ``whenEnded(_:)`` left (its handles let go of it) without ending the
    /// subscription: what a bus does with the subscriptions it still has when it is freed.
    func releaseHandles() {
        ended()
    }

    /// Runs what ``whenEnded(_:)`` left, once, outside the lock.
    private func ended() {
        onEnd.withLock { $0.take() }?()
    }

    /// Runs the handler for `envelope` unless the subscription was removed, its owner freed,
    /// or its interest declines the event.
    ///
    /// The common delivery (no owner, every event wanted, nobody observing) is this function and
    /// the handler; the rest is ``deliverWithChecks(_:)``.
    func deliver(_ envelope: _EventEnvelope) -> _DeliveryOutcome {
        // Two flags worked out at registration: the common delivery calls nothing but the handler.
        guard _fastPath(isPlain), envelope.annotation == nil || !observes else { return deliverWithChecks(envelope) }
        guard active.load(ordering: .acquiring) else { return .removed }
        do {
            try handler(envelope.event, envelope.metadata)
        } catch {
            return failed(error, envelope)
        }
        return .delivered
    }

    /// ``deliver(_:)`` for a listener with an owner, an interest or interceptors to run.
    @inline(never)
    private func deliverWithChecks(_ envelope: _EventEnvelope) -> _DeliveryOutcome {
        hasOwner ? deliverHoldingOwner(envelope) : deliverChecked(envelope, ownerGone: false)
    }

    /// ``deliver(_:)`` for a listener with an owner: the owner is held until the handler has
    /// returned (a handler built from an unapplied method loads it again, and must find it, or
    /// the delivery would count as one that ran).
    @inline(never)
    private func deliverHoldingOwner(_ envelope: _EventEnvelope) -> _DeliveryOutcome {
        let keptOwner = owner
        defer { withExtendedLifetime(keptOwner) {} }
        return deliverChecked(envelope, ownerGone: keptOwner == nil)
    }

    /// ``deliver(_:)`` with every check: the owner, the subscription's interest, the interceptors.
    @inline(never)
    private func deliverChecked(_ envelope: _EventEnvelope, ownerGone: Bool) -> _DeliveryOutcome {
        let refusal = refusal(
            ownerGone: ownerGone, isNewest: { envelope.hasSequence($0) },
            metadata: { envelope.metadata }, accepts: { $0.accepts(envelope.event, envelope.metadata) },
            envelope: { envelope })
        if let refusal { return refusal }
        do {
            if _slowPath(isObserved(envelope.annotation)) {
                // Not nil: `isObserved` checked it.
                try observation.unsafelyUnwrapped.run(
                    { try handler(envelope.event, envelope.metadata) }, for: envelope, receiver: receiver)
            } else {
                try handler(envelope.event, envelope.metadata)
            }
        } catch {
            return failed(error, envelope)
        }
        return .delivered
    }

    /// Whether a delivery must go through the bus's interceptors, or bind the event's service
    /// context. An event dispatched while the bus was observed always has an annotation (its
    /// dispatch number at least), so one check for `nil` decides; deliveries of events
    /// dispatched before an interceptor was added do not reach it.
    @inline(__always)
    private func isObserved(_ annotation: _DispatchAnnotation?) -> Bool {
        annotation != nil && observes
    }

    /// Reports what the handler threw for `envelope`; the delivery is counted as failed.
    @inline(never)
    private func failed(_ error: any Error, _ envelope: _EventEnvelope) -> _DeliveryOutcome {
        failures?.report(error, envelope, receiver: receiverDescription)
        return .failed
    }

    /// Where this subscription's handler runs, in words, for errors and logs.
    var receiverDescription: String { target.receiverDescription }

    /// Why an event is not delivered (the subscription was removed, its owner freed, or its
    /// interest declines the event), or `nil` when it is. The event is described by what the
    /// interests ask: whether it is the newest of its type, its metadata, a filter's verdict.
    @inline(__always)
    private func refusal(
        ownerGone: Bool, isNewest: (UInt64) -> Bool, metadata: () -> EventMetadata, accepts: (_EventFilter) -> Bool,
        envelope: () -> _EventEnvelope
    ) -> _DeliveryOutcome? {
        // The owner first: a listener whose owner was freed may also have been dropped for it.
        if ownerGone {
            cancel()
            return .ownerGone
        }
        guard active.load(ordering: .acquiring) else { return .removed }
        // Most listeners want every event: one compare, not the switch's indirect jump.
        if case .all = interest { return nil }
        switch interest {
        case .all:
            return nil
        case .latestOnly(let tracker):
            return isNewest(tracker.current) ? nil : .superseded
        case .youngerThan(let maximumAge):
            return maximumAge > 0 && metadata().age > maximumAge ? .expired : nil
        case .newerThanHanded(let gate):
            return gate.admit(envelope().sequence) ? nil : .superseded
        case .custom(let filter):
            if accepts(filter) { return nil }
            if let observation, observation.isActive { observation.settled(.filtered, envelope(), receiver: receiver) }
            return .filtered
        }
    }

    /// Who this subscription delivers to, for interceptors.
    /// Worked out on first use and kept: naming an owner's type demangles it.
    var receiver: EventReceiver {
        if let known = knownReceiver.withLock({ $0 }) { return known }
        let receiver = EventReceiver(
            kind: registrarReceiverKind ?? target.receiverKind, name: target.receiverName,
            owner: owner.map { String(describing: type(of: $0)) })
        knownReceiver.withLock { $0 = receiver }
        return receiver
    }

    /// Counts and reports a synchronous delivery refused for nesting too deeply
    /// (``EventBus/maximumSynchronousDepth``).
    @inline(never)
    func refuseTooDeep(_ envelope: _EventEnvelope, counters: _BusCounters) {
        if let bus = registrar as? EventBus {
            bus.refuseTooDeep(
                envelope, receiver: receiverDescription, intercepted: observation?.isActive == true ? receiver : nil)
        } else {
            counters.settle(.failed, envelope)
        }
    }

    /// Hands `envelope` to this subscription's target (see ``_DeliveryTarget/deliver(_:for:)``).
    @inline(__always)
    func send(_ envelope: _EventEnvelope) {
        target.deliver(envelope, for: self)
    }
}

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
