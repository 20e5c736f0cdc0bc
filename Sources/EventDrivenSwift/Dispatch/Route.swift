/// The subscribers of one event type on one bus: an immutable snapshot, replaced whenever a
/// subscription is added or removed, so a dispatch reads it without waiting on anyone.
final class _Route: Sendable {
    let subscriptions: [_Subscription]
    /// Present while any subscriber is `.latestOnly`; dispatch then numbers the events.
    let latest: _LatestTracker?
    /// How the route hands an event to its subscriptions' targets (see ``_DeliveryPlan``).
    let plan: _DeliveryPlan
    /// The bus's count of dispatches in flight, which every route is in while it lives: a
    /// dispatch that delivers after the registry lock holds its route, so a shutdown that has
    /// removed every route waits for those dispatches by waiting for their routes to go.
    private let inFlight: _DispatchesInFlight?

    init(subscriptions: [_Subscription], latest: _LatestTracker?, inFlight: _DispatchesInFlight? = nil) {
        inFlight?.enter()
        self.inFlight = inFlight
        self.subscriptions = subscriptions
        self.latest = latest
        self.plan = _DeliveryPlan(subscriptions)
    }

    deinit {
        inFlight?.leave()
    }
}

/// How a route hands an event to the targets of its subscriptions, chosen once, when the route
/// is built, from what its targets offer.
///
/// Every route can deliver through ``_DeliveryTarget/deliver(_:for:)``, one call per
/// subscription (``eachTarget``). A kind of target may offer a faster way for a route whose
/// subscriptions are all of its kind; each such plan is a type in the kind's own files. The
/// plan is a closed enumeration rather than a protocol so that the compiler inlines each kind's
/// fast path into the dispatch that uses it.
enum _DeliveryPlan: Sendable {
    /// Every target is an unbounded mailbox: served under the registry lock (Mailboxes/MailboxSubscriber.swift).
    case servedMailboxes(_ServedMailboxes)
    /// Every target is synchronous: one envelope on the stack, delivered in place (Delivery/SynchronousTarget.swift).
    case synchronousBatch(_SynchronousBatch)
    /// The one target is a pool (Pools/EventPoolCore+DeliveryTarget.swift).
    case pool(_PoolHandOff)
    /// One ``_DeliveryTarget/deliver(_:for:)`` per subscription.
    case eachTarget

    /// The plan for a route of `subscriptions`.
    init(_ subscriptions: [_Subscription]) {
        if let mailboxes = _ServedMailboxes(subscriptions) {
            self = .servedMailboxes(mailboxes)
        } else if let batch = _SynchronousBatch(subscriptions) {
            self = .synchronousBatch(batch)
        } else if let handOff = _PoolHandOff(subscriptions) {
            self = .pool(handOff)
        } else {
            self = .eachTarget
        }
    }
}

/// What a dispatch carries out of the registry lock (see ``_Route/serve(method:priority:boxesInline:_:_:)``).
struct _Serving {
    /// Wakes to perform once the lock is released.
    var followUps = _MailboxWakes()
    /// The route, retained under the lock, when it was not served entirely under it.
    var found: Unmanaged<_Route>?
    /// How many of a mailbox route's subscribers were served under the lock.
    var served = 0
    /// The event's sequence number, given under the lock to a mailbox route.
    var sequence: UInt64 = 0
}

extension _Route {
    /// Under the registry lock: serves the route when its plan is ``_DeliveryPlan/servedMailboxes(_:)``
    /// and no mailbox needs to allocate, and returns `true`; otherwise retains the route into
    /// `serving.found`, with how many subscribers were served, and returns `false`.
    @inline(__always)
    func serve(
        method: EventDispatchMethod, priority: EventPriority, boxesInline: Bool,
        _ makeEnvelope: (UInt64) -> _EventEnvelope, _ serving: inout _Serving
    ) -> Bool {
        if plan.serve(
            latest: latest, method: method, priority: priority, boxesInline: boxesInline, makeEnvelope, &serving)
        {
            return true
        }
        serving.found = .passRetained(self)
        return false
    }

    /// After the registry lock: delivers what ``serve(method:priority:boxesInline:_:_:)`` left,
    /// by the route's plan. The caller holds the route.
    @inline(__always)
    func deliver(
        after serving: _Serving, method: EventDispatchMethod, boxesInline: Bool,
        _ makeEnvelope: (UInt64) -> _EventEnvelope
    ) {
        guard plan.deliver(after: serving, latest: latest, method: method, boxesInline: boxesInline, makeEnvelope)
        else { return deliver(makeEnvelope(0)) }
    }

    /// Hands `envelope` to every subscription, outside the registry lock; the caller holds the route.
    @inline(never)
    func deliver(_ envelope: consuming _EventEnvelope) {
        if let latest { envelope.sequence = latest.advance() }
        plan.deliver(envelope, to: subscriptions)
    }
}

extension _DeliveryPlan {
    /// ``_Route/serve(method:priority:boxesInline:_:_:)``: `true` when every subscriber was
    /// served; otherwise how many were goes to `serving`.
    @inline(__always)
    fileprivate func serve(
        latest: _LatestTracker?, method: EventDispatchMethod, priority: EventPriority, boxesInline: Bool,
        _ makeEnvelope: (UInt64) -> _EventEnvelope, _ serving: inout _Serving
    ) -> Bool {
        guard case .servedMailboxes(let mailboxes) = self else { return false }
        let sequence = latest?.advance() ?? 0
        let served: Int
        if boxesInline || mailboxes.subscribers.count == 1 {
            served = mailboxes.enqueueIfRoom(
                method: method, priority: priority, holdsInlineEvent: boxesInline, { makeEnvelope(sequence) },
                followUps: &serving.followUps)
        } else {
            let envelope = makeEnvelope(sequence)
            served = mailboxes.enqueueIfRoom(
                method: method, priority: priority, holdsInlineEvent: false, { envelope },
                followUps: &serving.followUps)
        }
        if served == mailboxes.subscribers.count { return true }
        serving.served = served
        serving.sequence = sequence
        return false
    }

    /// ``_Route/deliver(after:method:boxesInline:_:)``; `false`, having delivered nothing, for
    /// ``eachTarget``, whose envelope the route delivers whole.
    @inline(__always)
    fileprivate func deliver(
        after serving: _Serving, latest: _LatestTracker?, method: EventDispatchMethod, boxesInline: Bool,
        _ makeEnvelope: (UInt64) -> _EventEnvelope
    ) -> Bool {
        switch self {
        case .servedMailboxes(let mailboxes):
            // Partly served: a mailbox would have grown under the lock. The rest, in order.
            serving.followUps.finish()
            let sequence = serving.sequence
            mailboxes.enqueue(
                after: serving.served, method: method, holdsInlineEvent: boxesInline, { makeEnvelope(sequence) })
        case .synchronousBatch(let batch):
            let sequence = latest?.advance() ?? 0
            batch.deliver({ makeEnvelope(sequence) }, boxesInline: boxesInline)
        case .pool(let handOff):
            // A pool builds its thread's entries from fresh envelopes, as served routes do.
            let sequence = latest?.advance() ?? 0
            handOff.deliver({ makeEnvelope(sequence) }, holdsInlineEvent: boxesInline)
        case .eachTarget:
            return false
        }
        return true
    }

    /// ``_Route/deliver(_:)`` of a numbered envelope to `subscriptions`.
    fileprivate func deliver(_ envelope: _EventEnvelope, to subscriptions: [_Subscription]) {
        switch self {
        case .servedMailboxes(let mailboxes):
            mailboxes.enqueue(after: 0, method: envelope.metadata.method, holdsInlineEvent: false, { envelope })
        case .synchronousBatch(let batch):
            batch.deliver({ envelope }, boxesInline: false)
        case .pool(let handOff):
            handOff.deliver({ envelope }, holdsInlineEvent: false)
        case .eachTarget where envelope.metadata.method == .stack && subscriptions.count > 1:
            // A receiver runs its stacked entries newest first, so the lane entries of one
            // stacked event are appended in reverse: a receiver with several callbacks for the
            // type then still runs them in registration order. The others keep registration order.
            for subscription in subscriptions where !subscription.usesLanes { subscription.send(envelope) }
            for subscription in subscriptions.reversed() where subscription.usesLanes { subscription.send(envelope) }
        case .eachTarget:
            for subscription in subscriptions { subscription.send(envelope) }
        }
    }
}
