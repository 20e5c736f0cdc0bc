// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

extension EventBus {
    // MARK: Values

    /// Makes `value` the current value of `state` and notifies its subscribers, unless it
    /// equals the current value.
    ///
    /// Synchronous subscribers run before `set` returns. Subscribers on a serial context see
    /// every change, in the order the changes were made; subscribers that run on the setter's
    /// thread or in tasks may skip a value that a newer one overtook (counted as `superseded`,
    /// with its dead letter), but never see an older value after a newer one.
    ///
    /// A change is a dispatch like any other: while the bus is observed, interceptors see it
    /// (``EventInterceptor/didDispatch(_:context:)``) and each of its deliveries, and the
    /// `ServiceContext` current here is current around every subscriber's handler (see
    /// ``propagatesServiceContext``). A new subscriber's first value carries the context of the
    /// change that made it.
    /// - Returns: `true` if the value changed; `false` if it was equal, or the bus is shut down
    ///   (reported as ``EventDrivenError/Code/busShutDown``).
    @discardableResult
    public func set<Value>(_ state: EventState<Value>, to value: Value) -> Bool {
        dispatches.enter()
        defer { dispatches.leave() }
        // As for events: while a graceful stop lets them through, a handler's changes are follow-ups.
        guard lifecycle.isAccepting || admitsWhileStopping(_StateChange(value: value, version: 0)) else {
            counters.rejected.add(1, ordering: .relaxed)
            counters.observation.rejected(_StateChange(value: value, version: 0), metadata: stateMetadata, site: nil)
            report(.busShutDown(bus: label, eventType: state.description))
            return false
        }
        // The dispatch's record (its number, its service context) is made once the value is
        // known to change, outside the lock: interceptors are user code.
        var record: _DispatchAnnotation?? = nil
        // The value's `==` is user code: it runs outside the lock, against a version that the
        // change then requires to be still current. A cell retired meanwhile (see
        // ``_StateStore``) sends the setter back to the store for the current one.
        while true {
            let cell = stores.states.cell(for: state)
            let (current, version, retired) = cell.withLock { ($0.value, $0.version, $0.isRetired) }
            if retired { continue }
            if current == value { return false }
            let annotation =
                record
                ?? counters.observation.annotationIfObserved(
                    for: _StateChange(value: value, version: version + 1), stateMetadata)
            record = annotation
            guard
                let change = cell.withLock({ slot in
                    commit(value, annotation: annotation, ifAt: version, to: &slot, of: state)
                })
            else {
                continue
            }
            _ = consume current
            if change.publishes { cell.publish() }
            for subscription in change.onSender {
                subscription.send(change.envelope)
            }
            return true
        }
    }

    /// What one committed change leaves to do outside the lock; its replaced value and its route
    /// are freed there too.
    private struct _CommittedChange<Value> {
        let replaced: Value?
        let replacedAnnotation: _DispatchAnnotation?
        let route: _Route?
        let envelope: _EventEnvelope
        /// Subscribers that run on the setter's thread (synchronous): each setter serves its own.
        let onSender: [_Subscription]
        /// The setter must publish the outbox (see ``_StateCell``).
        let publishes: Bool
    }

    /// Makes `value` current if the state is still at `version`; `nil` if another change came first.
    private func commit<Value>(
        _ value: Value, annotation: _DispatchAnnotation?, ifAt version: UInt64,
        to slot: inout _StateCell<Value>.Slot, of state: EventState<Value>
    ) -> _CommittedChange<Value>? {
        guard slot.version == version, !slot.isRetired else { return nil }
        let replaced = slot.value
        let replacedAnnotation = slot.annotation
        slot.value = value
        slot.annotation = annotation
        slot.version += 1
        let route = registry.withLock { $0.channels[state.identity] }
        let envelope = stateEnvelope(value, version: slot.version, annotation: annotation)
        var onSender: [_Subscription] = []
        var inOrder: [_Subscription] = []
        for subscription in route?.subscriptions ?? [] {
            if subscription.target.runsOnSender { onSender.append(subscription) } else { inOrder.append(subscription) }
        }
        let publishes = !inOrder.isEmpty && slot.post(_StatePublication(envelope: envelope, subscriptions: inOrder))
        return _CommittedChange(
            replaced: replaced, replacedAnnotation: replacedAnnotation, route: route, envelope: envelope,
            onSender: onSender, publishes: publishes)
    }

    /// The current value of `state` on this bus, or `nil` if it was never set; it does not
    /// subscribe.
    public func value<Value>(of state: EventState<Value>) -> Value? {
        stores.states.existingCell(for: state)?.withLock { $0.value }
    }

    /// Forgets the current value of `state` without notifying anyone: new subscribers get no
    /// first value, and the next `set` is a change whatever its value.
    ///
    /// A state that has neither a value nor a subscriber takes no memory on the bus: its key is
    /// released.
    public func removeValue<Value>(of state: EventState<Value>) {
        guard let cell = stores.states.existingCell(for: state) else { return }
        // The value is freed outside the lock: its `deinit` is user code.
        let (removed, retired) = cell.takeValue(on: self, state.identity)
        _ = consume removed
        if retired { stores.states.forget(cell, state.identity) }
    }

    // MARK: Subscribing

    /// Calls `handler` in `context` with the current value of `state`, if it has one, then with
    /// every change.
    ///
    /// The current value reaches the handler before any later change. With
    /// ``DeliveryContext/synchronous`` it is delivered before `subscribe` returns.
    @discardableResult
    @_disfavoredOverload  // without `on:`, a call means the form that keeps the closure's isolation
    public func subscribe<Value>(
        _ state: EventState<Value>, on context: DeliveryContext = .requesterThread,
        isolation: (any Actor)? = #isolation,
        _ handler: @escaping @Sendable (Value) -> Void
    ) -> ChannelSubscription {
        subscribe(state, on: context, isolation: isolation) { (_: ChannelSubscription, value: Value) in handler(value) }
    }

    /// Calls `handler` in `context` with its own subscription and the current value of `state`,
    /// if it has one, then with every change; the handler can end the subscription, for example
    /// after the first value.
    @discardableResult
    public func subscribe<Value>(
        _ state: EventState<Value>, on context: DeliveryContext = .requesterThread,
        isolation: (any Actor)? = #isolation,
        _ handler: @escaping @Sendable (ChannelSubscription, Value) -> Void
    ) -> ChannelSubscription {
        let reference = _SubscriptionReference()
        // The reference holds the subscription until it ends (``_SubscriptionReference``).
        _ = subscribeState(
            state, target: target(for: context, isolation: isolation), registrar: self,
            prepare: { reference.attach($0) },
            { change, _ in handler(ChannelSubscription(reference), change.value) })
        return ChannelSubscription(reference)
    }

    /// Registers `handler` for `state`'s changes on `target` and sends it the current value, if
    /// any, ahead of every later change; the handler never sees an older value after a newer one.
    /// `prepare` sees the subscription before it is registered, since a synchronous replay runs
    /// before this returns.
    func subscribeState<Value>(
        _ state: EventState<Value>, target: any _DeliveryTarget, registrar: any _SubscriptionRegistrar,
        prepare: (_Subscription) -> Void = { _ in },
        _ handler: @escaping @Sendable (_StateChange<Value>, EventMetadata) -> Void
    ) -> _Subscription {
        let gate = _StateGate()
        let subscription = _Subscription(
            _StateChange<Value>.self, owner: nil, target: target,
            interest: .newerThanHanded(
                _EventFilter { change, _ in gate.admit((change as! _StateChange<Value>).version) }),
            channel: state.identity, registrar: registrar, handler: handler)
        prepare(subscription)
        // Registering and queueing the current value under the state's lock puts the value
        // ahead of every later change in the outbox, and so in a serial subscriber's mailbox.
        while true {
            let cell = stores.states.cell(for: state)
            let registered = cell.withLock { slot -> (replay: _EventEnvelope?, publishes: Bool)? in
                if slot.isRetired { return nil }
                register(subscription)
                guard let value = slot.value else { return (nil, false) }
                let envelope = stateEnvelope(value, version: slot.version, annotation: slot.annotation)
                if subscription.target.runsOnSender { return (envelope, false) }
                return (nil, slot.post(_StatePublication(envelope: envelope, subscriptions: [subscription])))
            }
            // Retired between the store and its lock: ask the store again.
            guard let (replay, publishes) = registered else { continue }
            if publishes { cell.publish() }
            if let replay { subscription.send(replay) }
            return subscription
        }
    }

    /// Forgets the state `subscription` watched if it has neither a value nor a subscriber any
    /// more (see ``_StateStore``); nothing for a channel, which has no cell.
    func forgetStateIfUnused(after subscription: _Subscription) {
        // Once the bus stops accepting, its states go with it. Skipping then also keeps this off
        // the one path that unregisters under a state's lock: a registration refused in
        // `subscribeState` because the bus is shutting down.
        guard lifecycle.isAccepting, let channel = subscription.channel else { return }
        stores.states.forgetIfUnused(channel, on: self)
    }

    /// How many subscriptions `state` has on this bus.
    public func subscriberCount<Value>(for state: EventState<Value>) -> Int {
        registry.withLock { $0.channels[state.identity]?.subscriptions.count ?? 0 }
    }

    /// How a state's change is dispatched: queued, at normal priority, now.
    private var stateMetadata: EventMetadata {
        EventMetadata(priority: .normal, method: .queue, dispatchTime: ._eventNow, scheduledTime: nil)
    }

    /// The envelope of one value of a state, with the record of the change that made it.
    private func stateEnvelope<Value: Equatable & Sendable>(
        _ value: Value, version: UInt64, annotation: _DispatchAnnotation?
    ) -> _EventEnvelope {
        _EventEnvelope(
            event: _StateChange(value: value, version: version), metadata: stateMetadata, sequence: 0,
            annotation: annotation)
    }
}
