// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// The machinery of an ``EventPool``: it stands between the bus and the pool's threads.
///
/// Threads register their callbacks here (a ``_SubscriptionRegistrar``); the pool subscribes
/// once per event type on the bus with itself as the delivery sink, and hands each event to
/// one thread chosen by the balancer. The lock guards the state machine and the current
/// snapshot; routing reads the snapshot and enqueues without holding it.
final class _EventPoolCore: _DrainableSink, _SubscriptionRegistrar {
    typealias State = _EventPoolState<_EventPoolMember, _EventPoolHeldEvent>

    struct Locked: Sendable {
        var state: State
        var snapshot = _EventPoolSnapshot(generation: 0, routes: [:])
        /// The callbacks each thread registered, by the identity of its mailbox.
        var registrations: [ObjectIdentifier: [_Subscription]] = [:]
        /// The pool's own subscription on the bus, per event type or channel.
        var busSubscriptions: [_EventPoolRouteKey: _Subscription] = [:]
        /// Deliveries handled by threads that finished retiring, and by the threads of a stopped
        /// pool (counted as they stop, then settled once they have).
        var handledByRetired = 0
        var periodicCheck: ScheduledEventHandle?
    }

    let bus: EventBus
    let balancer: any EventPoolBalancing
    let evaluationInterval: Duration?
    let locked: _PILockedValue<Locked>
    /// Held while the pool changes size, so resizes never overlap. Stopping does not take it:
    /// a resize that overlaps a stop finds the pool stopped.
    let scaling: LockedValue<any EventPoolScaling>
    let makeThread: @Sendable () -> EventThread

    init(
        bus: EventBus, balancer: any EventPoolBalancing, scaler: any EventPoolScaling,
        makeThread: @escaping @Sendable () -> EventThread
    ) {
        self.bus = bus
        self.balancer = balancer
        self.evaluationInterval = scaler.evaluationInterval
        self.scaling = LockedValue(scaler)
        self.makeThread = makeThread
        self.locked = _PILockedValue(Locked(state: State(ordersHandovers: balancer.requiresOrderedHandover)))
    }

    var isStopped: Bool { locked.withLock { $0.state.isStopped } }

    // MARK: Registration

    var observation: _Observation? { bus.counters.observation }
    /// The pool's threads receive as the pool.
    var registeredReceiverKind: EventReceiverKind? { .pool }

    func register(_ subscription: _Subscription) {
        guard let mailbox = subscription.mailbox else {
            bus.register(subscription)
            return
        }
        let key = _EventPoolRouteKey(subscription)
        let (busSubscription, superseded) = locked.withLock { locked -> (_Subscription?, _EventPoolSnapshot?) in
            guard !locked.state.isStopped else { return (nil, nil) }
            locked.registrations[ObjectIdentifier(mailbox), default: []].append(subscription)
            var added: _Subscription?
            if locked.busSubscriptions[key] == nil {
                let forwarding = makeBusSubscription(subscription.eventMetatype, channel: subscription.channel)
                locked.busSubscriptions[key] = forwarding
                added = forwarding
            }
            let isMember = locked.state.members.contains { $0.mailbox === mailbox }
            return (added, isMember ? rebuild(&locked) : nil)
        }
        if let busSubscription { bus.register(busSubscription) }
        finishSuperseding(superseded)
    }

    func unregister(_ subscription: _Subscription) {
        guard let mailbox = subscription.mailbox else {
            bus.unregister(subscription)
            return
        }
        let key = _EventPoolRouteKey(subscription)
        let (unused, superseded) = locked.withLock { locked -> (_Subscription?, _EventPoolSnapshot?) in
            let id = ObjectIdentifier(mailbox)
            guard var registered = locked.registrations[id] else { return (nil, nil) }
            registered.removeAll { $0 === subscription }
            locked.registrations[id] = registered.isEmpty ? nil : registered
            var unused: _Subscription?
            let stillUsed = locked.registrations.values.contains { $0.contains { _EventPoolRouteKey($0) == key } }
            if !stillUsed { unused = locked.busSubscriptions.removeValue(forKey: key) }
            let isMember = locked.state.members.contains { $0.mailbox === mailbox }
            return (unused, isMember && !locked.state.isStopped ? rebuild(&locked) : nil)
        }
        unused?.cancel()
        finishSuperseding(superseded)
    }

    private func makeBusSubscription<E: Eventable>(_ type: E.Type, channel: _ChannelKey?) -> _Subscription {
        // The pool's own subscription never runs the handler: deliveries go to `deliver(_:for:)`.
        _Subscription(
            type, owner: nil, target: self, interest: .all, channel: channel, registrar: bus, handlers: .empty)
    }

    // MARK: Snapshots

    /// Installs a snapshot of the current members; returns the one it replaces. Under the lock.
    func rebuild(_ locked: inout Locked) -> _EventPoolSnapshot {
        _ = locked.state.rebuild()
        return installSnapshot(&locked)
    }

    /// Builds the snapshot of `locked.state`'s generation and returns the one it replaces.
    func installSnapshot(_ locked: inout Locked) -> _EventPoolSnapshot {
        var routes: [_EventPoolRouteKey: _EventPoolRoute] = [:]
        for key in locked.busSubscriptions.keys {
            var members: [EventPoolMember] = []
            var records: [_EventPoolMember] = []
            var subscriptions: [[_Subscription]] = []
            for member in locked.state.members {
                let callbacks = (locked.registrations[ObjectIdentifier(member.mailbox)] ?? []).filter {
                    _EventPoolRouteKey($0) == key
                }
                guard !callbacks.isEmpty else { continue }
                members.append(EventPoolMember(id: member.id, mailbox: member.mailbox))
                records.append(member)
                subscriptions.append(callbacks)
            }
            guard !members.isEmpty else { continue }
            routes[key] = _EventPoolRoute(
                members: EventPoolMembers(members, generation: locked.state.generation), records: records,
                subscriptions: subscriptions)
        }
        let old = locked.snapshot
        locked.snapshot = _EventPoolSnapshot(generation: locked.state.generation, routes: routes)
        return old
    }

    /// Marks `old` superseded and releases it when no dispatch is using it.
    func finishSuperseding(_ old: _EventPoolSnapshot?) {
        if let old, old.supersede() { snapshotReleased(old.generation) }
    }

    // MARK: Dispatch

    private enum Admission {
        case route(_EventPoolSnapshot)
        case held
        case stopped
    }

    /// Takes an event of a type the pool's threads listen to (see ``deliver(_:for:)``).
    func accept(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        let admission = locked.withLock { locked -> Admission in
            if locked.state.isStopped { return .stopped }
            if locked.state.isHolding {
                locked.state.hold(_EventPoolHeldEvent(envelope: envelope, key: _EventPoolRouteKey(subscription)))
                return .held
            }
            locked.snapshot.pin()
            return .route(locked.snapshot)
        }
        switch admission {
        case .route(let snapshot):
            let routed: Void? = snapshot.withRoute(for: subscription) { route(envelope, along: $0) }
            if routed == nil { bus.counters.settleNoReceiver(envelope) }
            if snapshot.unpin() { snapshotReleased(snapshot.generation) }
        case .held:
            break
        case .stopped:
            // The pool stopped between the bus's routing and its turn: it has left the bus, so
            // the event found no receiver, as if dispatched a moment later. Not discarded: a
            // pool discards only what it had accepted, which `stop` counts and returns.
            bus.counters.settleNoReceiver(envelope)
        }
    }

    /// Hands `envelope` to the thread the balancer chooses, once per callback it has for the type.
    func route(_ envelope: _EventEnvelope, key: _EventPoolRouteKey, through snapshot: _EventPoolSnapshot) {
        let routed: Void? = snapshot.withRoute(key) { route(envelope, along: $0) }
        if routed == nil { bus.counters.settleNoReceiver(envelope) }
    }

    /// Hands `envelope` to the thread of `route` that the balancer chooses, one delivery per
    /// callback the thread has for the type. The caller pins the snapshot that holds `route`,
    /// which holds the thread, its mailbox and its callbacks.
    private func route(_ envelope: _EventEnvelope, along route: _EventPoolRoute) {
        let count = route.targets.count
        let chosen = balancer.selectMember(for: envelope.event, metadata: envelope.metadata, among: route.members)
        let target = route.targets[(chosen % count + count) % count]
        let subscriptions = target.subscriptions
        // The thread runs its stacked deliveries newest first: the deliveries of a stacked event
        // go in reverse, so that its callbacks still run in registration order.
        let isStacked = envelope.metadata.method == .stack
        for position in subscriptions.indices {
            target.mailbox.deliver(
                envelope, for: subscriptions[isStacked ? subscriptions.count - 1 - position : position])
        }
        target.member.accepted.add(subscriptions.count, ordering: .relaxed)
    }

    // MARK: Drain

    /// Runs `body` once every event the pool accepted before this call has been handled.
    func addBarrier(_ body: @escaping @Sendable () -> Void) {
        let finalTick = locked.withLock { locked -> (@Sendable () -> Void)? in
            if locked.state.waitForHandover({ [self] in addBarrier(body) }) { return nil }
            let members = locked.state.members
            let countdown = _Countdown(members.count + locked.state.retiringCount + 1, then: body)
            // Barriers go in under the lock, so no member can finish draining before its barrier is in.
            for member in members { member.mailbox.addBarrier { countdown.tick() } }
            _ = locked.state.waitForRetirees { countdown.tick() }
            return { countdown.tick() }
        }
        finalTick?()
    }

    // MARK: Metrics

    /// The counts only grow: a thread that leaves the pool (retired or stopped) takes its
    /// handled deliveries from ``EventPoolMetrics/threads`` to
    /// ``EventPoolMetrics/handledByRetiredThreads`` in one step, under the lock.
    var metrics: EventPoolMetrics {
        let (members, retiring, held, handledByRetired) = locked.withLock {
            ($0.state.members, $0.state.retiringMembers, $0.state.held.count, $0.handledByRetired)
        }
        let threads = members.map { member in
            // `handled` first: a delivery it does not count yet is still in `load`.
            let handled = member.handled
            return EventPoolThreadMetrics(id: member.id, pending: member.mailbox.load, handled: handled)
        }
        return EventPoolMetrics(
            threads: threads, retiringThreadCount: retiring.count, heldEvents: held,
            handledByRetiredThreads: retiring.reduce(handledByRetired) { $0 + $1.handled })
    }
}
