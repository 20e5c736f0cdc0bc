// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Every route of one bus: plain events keyed by the `ObjectIdentifier` of their type, and
/// labelled or keyed channels by their channel identity.
///
/// The routes of plain events are published (``_PublishedRoutes``): each change builds a new
/// table and publishes it, and dispatches read it without this lock. So are the routes of
/// channels, in a second table keyed by the identity of the key each channel was first
/// subscribed with (``_ChannelKey/storage``): a publish on that channel value, or a copy of it,
/// finds its route there; one on an equal channel made apart looks it up here, under the lock.
struct _Registry {
    let published: _PublishedRoutes
    let publishedChannels: _PublishedRoutes
    private(set) var channels: [_ChannelKey: _Route] = [:]
    private var trackers: [ObjectIdentifier: _LatestTracker] = [:]

    init(published: _PublishedRoutes, publishedChannels: _PublishedRoutes) {
        self.published = published
        self.publishedChannels = publishedChannels
    }

    /// The routes of plain events.
    var routes: _RouteTable<_Route> { published.routes }

    /// Publishes `table` and keeps the one it replaced for the caller to retire.
    private func publish(_ table: _RouteTable<_Route>, into replaced: inout Replaced) {
        replaced.table = published.publish(table)
    }

    /// Publishes the channel table with `channel`'s route set to `route` (removed when `nil`),
    /// keyed by the identity of the key the registry holds for the channel (the one it was
    /// first subscribed with), and keeps the table it replaced for the caller to retire.
    private func publishChannel(_ channel: _ChannelKey, _ route: _Route?, into replaced: inout Replaced) {
        // The key the dictionary keeps: the first subscription's, while the channel has a route.
        guard let index = channels.index(forKey: channel) else { return }
        let table = publishedChannels.routes.copy()
        table[ObjectIdentifier(channels[index].key.storage)] = route
        replaced.table = publishedChannels.publish(table)
    }

    /// What a change to the registry took out of it, for the caller to release once the lock is
    /// released: a replaced route's `deinit` leaves the in-flight count (which may resume a
    /// waiting shutdown), and a subscription's may free the user's closures.
    struct Replaced {
        /// The route the change replaced, if any.
        var route: _Route?
        /// The route table the change replaced, to retire (``_DispatchesInFlight/retire(_:)``).
        var table: _RouteTable<_Route>?
        /// Listeners whose owner was freed, taken out of the route in the same pass.
        var ownerReleased: [_Subscription] = []
    }

    /// Adds `subscription` to its route. The listeners of `ownerReleased` (those of the route
    /// whose owner was freed, found by the caller before taking the lock) leave it in the same
    /// pass, which copies the route anyway, so that owner churn does not leave them behind.
    ///
    /// Nothing here loads a weak owner: a load retains the owner for a moment, and if its last
    /// other reference went meanwhile, releasing it would run its `deinit` (user code, which
    /// may cancel a listener and take this lock again) under the registry lock.
    mutating func add(_ subscription: _Subscription, pruning ownerReleased: [_Subscription] = []) -> Replaced {
        if let channel = subscription.channel {
            var subscriptions = channels[channel]?.subscriptions ?? []
            subscriptions.append(subscription)
            let route = _Route(subscriptions: subscriptions, latest: nil)
            var result = Replaced(route: channels.updateValue(route, forKey: channel))
            publishChannel(channel, route, into: &result)
            return result
        }
        let key = subscription.eventType
        let replaced = routes[key]
        var subscriptions = replaced?.subscriptions ?? []
        if !ownerReleased.isEmpty {
            subscriptions.removeAll { existing in ownerReleased.contains { $0 === existing } }
        }
        subscriptions.append(subscription)
        let table = routes.copy()
        table[key] = makeRoute(key, subscriptions)
        var result = Replaced(route: replaced, ownerReleased: ownerReleased)
        publish(table, into: &result)
        return result
    }

    /// Removes `subscription` from its route.
    mutating func remove(_ subscription: _Subscription) -> Replaced {
        if let channel = subscription.channel {
            guard let replaced = channels[channel] else { return Replaced() }
            var subscriptions = replaced.subscriptions
            subscriptions.removeAll { $0 === subscription }
            let route = subscriptions.isEmpty ? nil : _Route(subscriptions: subscriptions, latest: nil)
            var result = Replaced(route: replaced)
            // Before the dictionary lets go of the key, whose identity the published table uses.
            publishChannel(channel, route, into: &result)
            channels[channel] = route
            return result
        }
        let key = subscription.eventType
        guard let replaced = routes[key] else { return Replaced() }
        var subscriptions = replaced.subscriptions
        subscriptions.removeAll { $0 === subscription }
        let table = routes.copy()
        table[key] = subscriptions.isEmpty ? nil : makeRoute(key, subscriptions)
        var result = Replaced(route: replaced)
        publish(table, into: &result)
        return result
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
        return _Route(subscriptions: subscriptions, latest: needsLatest ? tracker(for: key) : nil)
    }
}
