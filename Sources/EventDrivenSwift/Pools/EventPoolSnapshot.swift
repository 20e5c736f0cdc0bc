// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// One thread of a pool, as the pool keeps it.
final class _EventPoolMember: Sendable, _EventPoolStateMember {
    let id: Int
    let thread: EventThread
    /// The thread's mailbox, reached without going through the thread.
    let mailbox: _Mailbox
    /// Deliveries enqueued into the thread's mailbox, for the pool's metrics.
    let accepted = Atomic<Int>(0)
    /// The most ``handled`` has reported, so that it never goes down.
    private let reportedHandled = Atomic<Int>(0)

    init(id: Int, thread: EventThread) {
        self.id = id
        self.thread = thread
        self.mailbox = thread.mailbox
    }

    /// Deliveries the thread has finished, never more than it has and never less than it
    /// reported before.
    ///
    /// `accepted` is read first: it grows after the enqueue, so the difference never runs
    /// ahead. It may lag (an enqueue between the two reads), which the high-water mark hides.
    var handled: Int {
        let accepted = accepted.load(ordering: .relaxed)
        let computed = max(0, accepted - mailbox.load)
        var last = reportedHandled.load(ordering: .relaxed)
        while computed > last {
            let (exchanged, original) = reportedHandled.compareExchange(
                expected: last, desired: computed, ordering: .relaxed)
            if exchanged { return computed }
            last = original
        }
        return last
    }
}

/// The route of one event type (or channel) through the pool.
struct _EventPoolRouteKey: Hashable, Sendable {
    let eventType: ObjectIdentifier
    let channel: _ChannelKey?

    init(_ subscription: _Subscription) {
        eventType = subscription.eventType
        channel = subscription.channel
    }
}

/// The threads that can receive one event type, with each thread's callbacks for it.
///
/// A class, so that a dispatch looking it up retains one object rather than each of its arrays.
final class _EventPoolRoute: Sendable {
    let members: EventPoolMembers
    /// Each thread with its callbacks for this type, in the order of `members`.
    let targets: [_EventPoolTarget]

    init(members: EventPoolMembers, records: [_EventPoolMember], subscriptions: [[_Subscription]]) {
        self.members = members
        self.targets = zip(records, subscriptions).map { member, callbacks in
            _EventPoolTarget(member: member, mailbox: member.mailbox, subscriptions: callbacks)
        }
    }
}

/// One thread of a route and its callbacks for the route's type.
struct _EventPoolTarget: Sendable {
    let member: _EventPoolMember
    let mailbox: _Mailbox
    let subscriptions: [_Subscription]
}

/// An immutable view of the pool's threads that dispatches read without holding the pool's
/// lock. Dispatches pin it while they route; once superseded and unpinned it is released,
/// which tells the pool that no dispatch can reach its threads through it any more.
final class _EventPoolSnapshot: Sendable {
    let generation: UInt64
    let routes: [_EventPoolRouteKey: _EventPoolRoute]
    /// The routes of plain events (no channel) again, in a table that dispatch reads without
    /// hashing the key or retaining the route.
    private let plainRoutes = _RouteTable<_EventPoolRoute>()
    private let pins = Atomic<Int>(0)
    private let isSuperseded = Atomic<Bool>(false)
    private let isReleased = Atomic<Bool>(false)

    init(generation: UInt64, routes: [_EventPoolRouteKey: _EventPoolRoute]) {
        self.generation = generation
        self.routes = routes
        for (key, route) in routes where key.channel == nil { plainRoutes[key.eventType] = route }
    }

    /// Calls `body` with the route of `key`, unretained (the snapshot holds it); `nil` when
    /// the pool has none.
    @inline(__always)
    func withRoute<Result>(_ key: _EventPoolRouteKey, _ body: (_EventPoolRoute) -> Result) -> Result? {
        if key.channel == nil { return plainRoutes.withRoute(key.eventType, body) }
        return routes[key].map(body)
    }

    /// Calls `body` with the route `subscription` (the pool's own subscription on the bus)
    /// stands for, unretained; `nil` when the pool has none. A plain event's route is found by
    /// its type alone, without building a route key, which would copy the channel key.
    @inline(__always)
    func withRoute<Result>(for subscription: _Subscription, _ body: (_EventPoolRoute) -> Result) -> Result? {
        if subscription.isChannelSubscription { return routes[_EventPoolRouteKey(subscription)].map(body) }
        return plainRoutes.withRoute(subscription.eventType, body)
    }

    /// Called under the pool's lock, only while this is the current snapshot.
    func pin() {
        pins.add(1, ordering: .sequentiallyConsistent)
    }

    /// Returns `true` when this call released the snapshot.
    func unpin() -> Bool {
        guard pins.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 else { return false }
        return isSuperseded.load(ordering: .sequentiallyConsistent) && claimRelease()
    }

    /// Called once the snapshot is no longer current. Returns `true` when this call released it.
    func supersede() -> Bool {
        isSuperseded.store(true, ordering: .sequentiallyConsistent)
        return pins.load(ordering: .sequentiallyConsistent) == 0 && claimRelease()
    }

    /// Both the last unpin and the supersede may see the count at zero; only one releases.
    private func claimRelease() -> Bool {
        !isReleased.exchange(true, ordering: .sequentiallyConsistent)
    }
}

/// An event waiting for a hand-over to finish.
struct _EventPoolHeldEvent: Sendable {
    let envelope: _EventEnvelope
    let key: _EventPoolRouteKey
}
