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
    @inlinable
    public func set<Value>(_ state: EventState<Value>, to value: Value) -> Bool {
        // Boxed and compared here, in the caller's module, which knows the value's type; the
        // rest is not generic (``_set(_:to:isCurrent:)``).
        _set(state.name, to: _StateChange(value: value)) { current in
            _project(current, as: _StateChange<Value>.self).value == value
        }
    }

    /// ``set(_:to:)`` once the caller's module has boxed the change: `change` is a
    /// `_StateChange<Value>`, and `isCurrent` tells whether a current change (of the same type)
    /// holds an equal value. `isCurrent` is the value's `==`, user code: it runs outside the
    /// lock, against a version that the change then requires to be still current. A cell retired
    /// meanwhile (see ``_StateStore``) sends the setter back to the store for the current one.
    @usableFromInline
    func _set(_ state: _ChannelName, to change: any Eventable, isCurrent: (any Eventable) -> Bool) -> Bool {
        dispatches.enter()
        defer { dispatches.leave() }
        let metadata = stateMetadata
        // As for events: while a graceful stop lets them through, a handler's changes are follow-ups.
        guard lifecycle.isAccepting || admitsWhileStopping(change) else {
            counters.rejected.add(1, ordering: .relaxed)
            counters.observation.rejected(change, metadata: metadata, site: nil)
            report(
                .busShutDown(
                    bus: label, eventType: state.describe(as: "EventState<\(_stateValueTypeName(of: change))>")))
            return false
        }
        // The dispatch's record (its number, its service context) is made once the value is
        // known to change, outside the lock: interceptors are user code.
        var record: _DispatchAnnotation?? = nil
        while true {
            let cell = stores.states.cell(for: state.identity)
            let (current, version, retired) = cell.withLock { ($0.current?.event, $0.version, $0.isRetired) }
            if retired { continue }
            if let current, isCurrent(current) { return false }
            let annotation = record ?? counters.observation.annotationIfObserved(for: change, metadata)
            record = annotation
            let envelope = _EventEnvelope(
                event: change, metadata: metadata, sequence: version + 1, annotation: annotation)
            guard let committed = cell.withLock({ commit(envelope, ifAt: version, to: &$0, of: state) }) else {
                continue
            }
            // Freed outside the lock: the values' `deinit` is user code.
            _ = consume current
            if let publication = committed.publication { cell.publish(publication) }
            // Subscribers that run on the setter's thread (synchronous): each setter serves its own.
            if committed.hasSubscribersOnSender, let route = committed.route {
                for subscription in route.subscriptions where subscription.target.runsOnSender {
                    subscription.send(envelope)
                }
            }
            return true
        }
    }

    /// What one committed change leaves to do outside the cell's lock; the change it replaced is
    /// freed there too, with this value.
    private struct _CommittedChange {
        let replaced: _EventEnvelope?
        let route: _Route?
        /// For the subscribers that take changes in order, when no other setter is publishing
        /// (see ``_StateCell``); it was queued for that setter otherwise.
        let publication: _StatePublication?
        /// Whether some subscribers run on the setter's thread (synchronous).
        let hasSubscribersOnSender: Bool
    }

    /// Makes `envelope`'s change current if the state is still at `version`; `nil` if another
    /// change came first.
    private func commit(
        _ envelope: _EventEnvelope, ifAt version: UInt64, to slot: inout _StateCell.Slot, of state: _ChannelName
    ) -> _CommittedChange? {
        guard slot.version == version, !slot.isRetired else { return nil }
        let replaced = slot.current
        slot.current = envelope
        slot.version += 1
        // Without the registry's lock when the state value is the one (or a copy of the one) its
        // first subscriber used, as for a channel's publish; a subscriber registers under this
        // cell's lock, held here, and its route is published before that lock is released.
        let route =
            channelRoutes.routes[ObjectIdentifier(state.identity.storage)]
            ?? registry.withLock { $0.channels[state.identity] }
        let onSender = route?.hasSubscribersOnSender ?? false
        var publication: _StatePublication?
        if let route, route.hasSubscribersElsewhere {
            let recipients: _StatePublication.Recipients = onSender ? .inOrderOf(route) : .route(route)
            // Queued behind the changes not yet handed over, if someone is publishing them.
            let toPublish = _StatePublication(envelope: envelope, recipients: recipients)
            if slot.post(toPublish) { publication = toPublish }
        }
        return _CommittedChange(
            replaced: replaced, route: route, publication: publication, hasSubscribersOnSender: onSender)
    }

    /// The current value of `state` on this bus, or `nil` if it was never set; it does not
    /// subscribe.
    public func value<Value>(of state: EventState<Value>) -> Value? {
        let current = stores.states.existingCell(for: state.identity)?.withLock { $0.current?.event }
        // A state's cell only ever holds changes of its value type (the identity includes it).
        return current.map { _project($0, as: _StateChange<Value>.self).value }
    }

    /// Forgets the current value of `state` without notifying anyone: new subscribers get no
    /// first value, and the next `set` is a change whatever its value.
    ///
    /// A state that has neither a value nor a subscriber takes no memory on the bus: its key is
    /// released.
    public func removeValue<Value>(of state: EventState<Value>) {
        guard let cell = stores.states.existingCell(for: state.identity) else { return }
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
    @inlinable
    public func subscribe<Value>(
        _ state: EventState<Value>, on context: DeliveryContext = .requesterThread,
        isolation: (any Actor)? = #isolation,
        _ handler: @escaping @Sendable (Value) -> Void
    ) -> ChannelSubscription {
        _subscribe(state.name, _StateChange<Value>.self, on: context, isolation: isolation) { change, _ in
            handler(_project(change, as: _StateChange<Value>.self).value)
        }
    }

    /// Calls `handler` in `context` with its own subscription and the current value of `state`,
    /// if it has one, then with every change; the handler can end the subscription, for example
    /// after the first value.
    @discardableResult
    @inlinable
    public func subscribe<Value>(
        _ state: EventState<Value>, on context: DeliveryContext = .requesterThread,
        isolation: (any Actor)? = #isolation,
        _ handler: @escaping @Sendable (ChannelSubscription, Value) -> Void
    ) -> ChannelSubscription {
        _subscribe(state.name, _StateChange<Value>.self, on: context, isolation: isolation) { handle, change in
            handler(handle, _project(change, as: _StateChange<Value>.self).value)
        }
    }

    /// ``subscribe(_:on:isolation:_:)`` with the handler built, in the caller's module, for the
    /// state's value type (``_project(_:as:)``), as a channel subscriber's is; the handler is the
    /// subscription's, with no handle made for each change.
    @usableFromInline
    func _subscribe(
        _ state: _ChannelName, _ changeType: any Eventable.Type, on context: DeliveryContext, isolation: (any Actor)?,
        _ handler: @escaping @Sendable (any Eventable, EventMetadata) -> Void
    ) -> ChannelSubscription {
        subscribe(state, changeType, on: context, isolation: isolation) { _ in _ErasedHandler(handler: handler) }
    }

    /// ``subscribe(_:on:isolation:_:)`` for a handler that takes its own subscription: one
    /// ``ChannelSubscription`` is made for each change.
    @usableFromInline
    func _subscribe(
        _ state: _ChannelName, _ changeType: any Eventable.Type, on context: DeliveryContext, isolation: (any Actor)?,
        _ handler: @escaping @Sendable (ChannelSubscription, any Eventable) -> Void
    ) -> ChannelSubscription {
        subscribe(state, changeType, on: context, isolation: isolation) { reference in
            _ErasedHandler(handler: { change, _ in handler(ChannelSubscription(reference), change) })
        }
    }

    /// Registers a subscription of `state` with the handler `handlers` makes for its reference.
    private func subscribe(
        _ state: _ChannelName, _ changeType: any Eventable.Type, on context: DeliveryContext, isolation: (any Actor)?,
        handlers: (_SubscriptionReference) -> _ErasedHandler
    ) -> ChannelSubscription {
        let reference = _SubscriptionReference()
        // The reference holds the subscription until it ends (``_SubscriptionReference``).
        _ = subscribeState(
            state.identity, changeType, target: target(for: context, isolation: isolation), registrar: self,
            prepare: { reference.attach($0) }, handlers: handlers(reference))
        return ChannelSubscription(reference)
    }

    /// Registers `handlers` for the changes (of type `changeType`, a `_StateChange`) of the
    /// state `identity` on `target` and sends them
    /// the current value, if any, ahead of every later change; the handler never sees an older
    /// value after a newer one. `prepare` sees the subscription before it is registered, since a
    /// synchronous replay runs before this returns.
    func subscribeState(
        _ identity: _ChannelKey, _ changeType: any Eventable.Type, target: any _DeliveryTarget,
        registrar: any _SubscriptionRegistrar, prepare: (_Subscription) -> Void = { _ in }, handlers: _ErasedHandler
    ) -> _Subscription {
        // A mailbox runs a state's changes in the order its cell hands them over (one publisher
        // at a time, into one first-in-first-out lane: all are queued at normal priority), so
        // its subscribers need no gate and take the plain delivery; on other targets
        // (synchronous, tasks, pools, streams) a change can be overtaken by a newer one.
        let interest: _Interest = target is _Mailbox ? .all : .newerThanHanded(_StateGate())
        let subscription = _Subscription(
            changeType, owner: nil, target: target, interest: interest,
            channel: identity, registrar: registrar, handlers: handlers)
        prepare(subscription)
        // Registering and queueing the current value under the state's lock puts the value
        // ahead of every later change, and so in a serial subscriber's mailbox.
        while true {
            let cell = stores.states.cell(for: identity)
            let registered = cell.withLock { slot -> (replay: _EventEnvelope?, publishes: Bool)? in
                if slot.isRetired { return nil }
                register(subscription)
                guard let current = slot.current else { return (nil, false) }
                // The current value, stamped now, with the record of the change that made it.
                let envelope = _EventEnvelope(
                    event: current.event, metadata: stateMetadata, sequence: slot.version,
                    annotation: current.annotation)
                if subscription.target.runsOnSender { return (envelope, false) }
                let publication = _StatePublication(envelope: envelope, recipients: .newSubscriber(subscription))
                return slot.post(publication) ? (envelope, true) : (nil, false)
            }
            // Retired between the store and its lock: ask the store again.
            guard let (replay, publishes) = registered else { continue }
            if let replay {
                if publishes {
                    cell.publish(_StatePublication(envelope: replay, recipients: .newSubscriber(subscription)))
                } else {
                    subscription.send(replay)
                }
            }
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
}
