/// The subscribers of one event type on one bus: an immutable snapshot, replaced whenever a
/// subscription is added or removed, so a dispatch reads it without waiting on anyone.
final class _Route: Sendable {
    let subscriptions: [_Subscription]
    /// Present while any subscriber is `.latestOnly`; dispatch then numbers the events.
    let latest: _LatestTracker?
    /// The subscriptions as mailbox subscribers, when every one of them delivers into an
    /// unbounded mailbox (the common case): dispatch then appends to those mailboxes while the
    /// registry lock keeps the route alive, without retaining anything per event.
    let mailboxSubscribers: [_MailboxSubscriber]?
    /// The groups among `mailboxSubscribers`, which hold them unretained.
    private let groups: [_SubscriptionGroup]
    /// The subscriptions, unretained, when every one of them runs its handler on the
    /// dispatching thread: the dispatch holds the route, and the route holds them.
    let synchronousSubscriptions: [Unmanaged<_Subscription>]?
    /// The only subscription, and the pool it forwards to, unretained, when the route's one
    /// subscriber is an ``EventPool``: the dispatch holds the route, the route the subscription,
    /// the subscription the pool. Reaching the pool through its subscription's `target` instead
    /// would retain it per event, and a pool's reference count is slow to change once it is
    /// weakly referenced.
    let poolSubscriber: (subscription: Unmanaged<_Subscription>, pool: Unmanaged<_EventPoolCore>)?
    /// The bus's count of dispatches in flight, which every route is in while it lives: a
    /// dispatch that delivers after the registry lock holds its route, so a shutdown that has
    /// removed every route waits for those dispatches by waiting for their routes to go.
    private let inFlight: _DispatchesInFlight?

    init(subscriptions: [_Subscription], latest: _LatestTracker?, inFlight: _DispatchesInFlight? = nil) {
        inFlight?.enter()
        self.inFlight = inFlight
        self.subscriptions = subscriptions
        self.latest = latest
        var groups: [_SubscriptionGroup] = []
        self.mailboxSubscribers = _MailboxSubscriber.of(subscriptions, groups: &groups)
        self.groups = groups
        let isSynchronous = subscriptions.allSatisfy {
            if case .synchronous = $0.target { return true }
            return false
        }
        self.synchronousSubscriptions = isSynchronous ? subscriptions.map { .passUnretained($0) } : nil
        if subscriptions.count == 1, let pool = subscriptions[0].sink as? _EventPoolCore {
            poolSubscriber = (.passUnretained(subscriptions[0]), .passUnretained(pool))
        } else {
            poolSubscriber = nil
        }
    }

    deinit {
        inFlight?.leave()
    }
}

/// Every route of one bus: plain events keyed by the `ObjectIdentifier` of their type, and
/// labelled or keyed channels by their channel identity.
struct _Registry {
    private(set) var routes = _RouteTable<_Route>()
    private(set) var channels: [_ChannelKey: _Route] = [:]
    private var trackers: [ObjectIdentifier: _LatestTracker] = [:]
    /// What every route counts itself in (see ``_Route``).
    private let inFlight: _DispatchesInFlight?

    init(inFlight: _DispatchesInFlight? = nil) {
        self.inFlight = inFlight
    }

    /// What a change to the registry took out of it, for the caller to release once the lock is
    /// released: a replaced route's `deinit` leaves the in-flight count (which may resume a
    /// waiting shutdown), and a subscription's may free the user's closures.
    struct Replaced {
        /// The route the change replaced, if any.
        var route: _Route?
        /// Listeners whose owner was freed, taken out of the route in the same pass.
        var ownerReleased: [_Subscription] = []
    }

    /// Adds `subscription` to its route. The listeners of the route whose owner was freed leave
    /// it in the same pass, which copies the route anyway, so that owner churn does not leave
    /// them behind.
    mutating func add(_ subscription: _Subscription) -> Replaced {
        if let channel = subscription.channel {
            var subscriptions = channels[channel]?.subscriptions ?? []
            subscriptions.append(subscription)
            let replaced = channels.updateValue(
                _Route(subscriptions: subscriptions, latest: nil, inFlight: inFlight), forKey: channel)
            return Replaced(route: replaced)
        }
        let key = subscription.eventType
        let replaced = routes[key]
        var subscriptions = replaced?.subscriptions ?? []
        var ownerReleased: [_Subscription] = []
        subscriptions.removeAll { existing in
            guard existing.hasOwner && existing.owner == nil else { return false }
            ownerReleased.append(existing)
            return true
        }
        subscriptions.append(subscription)
        routes[key] = makeRoute(key, subscriptions)
        return Replaced(route: replaced, ownerReleased: ownerReleased)
    }

    /// Removes `subscription` from its route.
    mutating func remove(_ subscription: _Subscription) -> Replaced {
        if let channel = subscription.channel {
            guard let replaced = channels[channel] else { return Replaced() }
            var subscriptions = replaced.subscriptions
            subscriptions.removeAll { $0 === subscription }
            channels[channel] =
                subscriptions.isEmpty ? nil : _Route(subscriptions: subscriptions, latest: nil, inFlight: inFlight)
            return Replaced(route: replaced)
        }
        let key = subscription.eventType
        guard let replaced = routes[key] else { return Replaced() }
        var subscriptions = replaced.subscriptions
        subscriptions.removeAll { $0 === subscription }
        routes[key] = subscriptions.isEmpty ? nil : makeRoute(key, subscriptions)
        return Replaced(route: replaced)
    }

    /// Every subscription of every type and channel.
    var allSubscriptions: [_Subscription] {
        routes.values.flatMap(\.subscriptions) + channels.values.flatMap(\.subscriptions)
    }

    /// The tracker of `key`, created on first use; kept for the bus's lifetime so sequence
    /// numbers never go back.
    mutating func tracker(for key: ObjectIdentifier) -> _LatestTracker {
        if let tracker = trackers[key] { return tracker }
        let tracker = _LatestTracker()
        trackers[key] = tracker
        return tracker
    }

    private mutating func makeRoute(_ key: ObjectIdentifier, _ subscriptions: [_Subscription]) -> _Route {
        let needsLatest = subscriptions.contains {
            if case .latestOnly = $0.interest { return true }
            return false
        }
        return _Route(subscriptions: subscriptions, latest: needsLatest ? tracker(for: key) : nil, inFlight: inFlight)
    }
}
