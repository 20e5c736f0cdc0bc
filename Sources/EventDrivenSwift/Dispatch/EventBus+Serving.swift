/// What a dispatch carries out of the registry lock (see
/// ``EventBus/route(key:method:priority:boxesInline:makeEnvelope:)``).
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

    /// Serves the route of `key` under the registry lock when its subscribers all have unbounded
    /// mailboxes and none needs to allocate, and returns `true`; otherwise retains the route into
    /// `serving.found` (if there is one), with how many subscribers were served, and returns
    /// `false`.
    @inline(__always)
    func serve(
        key: ObjectIdentifier, method: EventDispatchMethod, priority: EventPriority, boxesInline: Bool,
        _ makeEnvelope: (UInt64) -> _EventEnvelope, _ serving: inout _Serving
    ) -> Bool {
        registry.withLock { registry in
            registry.routes.withRoute(key) { borrowed -> Bool in
                guard let subscribers = borrowed.mailboxSubscribers else {
                    serving.found = .passRetained(borrowed)
                    return false
                }
                let sequence = borrowed.latest?.advance() ?? 0
                let served: Int
                if boxesInline || subscribers.count == 1 {
                    served = subscribers.enqueueIfRoom(
                        method: method, priority: priority, holdsInlineEvent: boxesInline, { makeEnvelope(sequence) },
                        followUps: &serving.followUps)
                } else {
                    let envelope = makeEnvelope(sequence)
                    served = subscribers.enqueueIfRoom(
                        method: method, priority: priority, holdsInlineEvent: false, { envelope },
                        followUps: &serving.followUps)
                }
                if served == subscribers.count { return true }
                serving.found = .passRetained(borrowed)
                serving.served = served
                serving.sequence = sequence
                return false
            } ?? false
        }
    }

    /// Delivers to the route that ``serve(key:method:priority:boxesInline:_:_:)`` retained (and
    /// releases it), or counts an event that found no subscriber and no consumer.
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
        found._withUnsafeGuaranteedRef { route in
            if let subscribers = route.mailboxSubscribers {
                // Partly served: a mailbox would have grown under the lock. The rest, in order.
                serving.followUps.finish()
                let sequence = serving.sequence
                subscribers.enqueue(
                    after: serving.served, method: method, holdsInlineEvent: boxesInline, { makeEnvelope(sequence) })
            } else if route.synchronousSubscriptions != nil {
                let sequence = route.latest?.advance() ?? 0
                deliverSynchronously({ makeEnvelope(sequence) }, boxesInline: boxesInline, to: route)
            } else if route.poolSubscriber != nil {
                // A pool builds its thread's entries from fresh envelopes, as served routes do.
                let sequence = route.latest?.advance() ?? 0
                handToPool(of: route, { makeEnvelope(sequence) }, holdsInlineEvent: boxesInline)
            } else {
                deliver(makeEnvelope(0), route: route)
            }
        }
        found.release()
    }
}
