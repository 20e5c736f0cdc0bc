// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// The subscribers of one event type (or channel) on one bus: an immutable snapshot, replaced
/// whenever a subscription is added or removed. A dispatch finds it in the published route
/// table (``_PublishedRoutes``) without a lock and delivers through it.
final class _Route: Sendable {
    // The reference count, in the object's header, takes the dispatching thread's retain for
    // every event that a multi-listener node carries, while the drainer reads the fields below
    // for every node: they start a cache line further (``_CacheLinePadding``).
    private let afterHeader = _CacheLinePadding()
    let subscriptions: [_Subscription]
    /// ``subscriptions`` again, unretained and grouped by target (each group in registration
    /// order, the groups in the order of their first subscription), so that a delivery neither
    /// retains nor releases them: `subscriptions` holds each one as long as this route exists.
    private let unretained: [Unmanaged<_Subscription>]
    /// Present while any subscriber is `.latestOnly`; dispatch then numbers the events.
    let latest: _LatestTracker?
    /// The groups of ``unretained`` that share a target (several listeners on the bus's listener
    /// thread, several callbacks of one EventThread), each handed over in one call; `nil` when
    /// every subscription has a target of its own.
    private let runs: [Range<Int>]?
    /// Whether some subscriptions run on the dispatching thread (``_DeliveryTarget/runsOnSender``)
    /// and whether some do not: a state's change hands them over apart (``EventBus/set(_:to:)``).
    let hasSubscribersOnSender: Bool
    let hasSubscribersElsewhere: Bool

    init(subscriptions: [_Subscription], latest: _LatestTracker?) {
        self.subscriptions = subscriptions
        self.latest = latest
        hasSubscribersOnSender = subscriptions.contains { $0.target.runsOnSender }
        hasSubscribersElsewhere = subscriptions.contains { !$0.target.runsOnSender }
        var groups: [[_Subscription]] = []
        var groupOfTarget: [ObjectIdentifier: Int] = [:]
        for subscription in subscriptions {
            let target = ObjectIdentifier(subscription.target)
            if let group = groupOfTarget[target] {
                groups[group].append(subscription)
            } else {
                groupOfTarget[target] = groups.count
                groups.append([subscription])
            }
        }
        // Unretained: `subscriptions` holds each one for as long as this route exists.
        self.unretained = groups.joined().map { Unmanaged.passUnretained($0) }
        var runs: [Range<Int>] = []
        var start = 0
        for group in groups {
            runs.append(start..<start + group.count)
            start += group.count
        }
        self.runs = groups.count < subscriptions.count ? runs : nil
    }

    /// Hands `envelope` to the target of every subscription, through the one boundary
    /// (``_DeliveryTarget/deliver(_:for:)``, or ``_DeliveryTarget/deliver(_:to:of:)`` for a
    /// target's group), holding no lock of the bus. A dispatch numbers the event first when the
    /// route has latest-only listeners (``latest``).
    ///
    /// Each target gets its subscriptions in one call, in registration order, and keeps that order
    /// itself: a mailbox takes them as one node (or, bounded, pushes a stacked event's in reverse,
    /// since it runs stacked nodes newest first).
    @inline(__always)
    func deliver(_ envelope: _EventEnvelope) {
        if let runs {
            for run in runs { deliver(envelope, run) }
            return
        }
        for subscription in unretained {
            // Unretained: `subscriptions` holds it, and the dispatch holds this route.
            subscription._withUnsafeGuaranteedRef { $0.target.deliver(envelope, for: $0) }
        }
    }

    /// Calls `body` with the subscription at each of `indices` (a run, or a run reversed), without
    /// retaining them: this route holds them, and the caller holds this route.
    @inline(__always)
    func forEach(in indices: some Sequence<Int>, _ body: (_Subscription) -> Void) {
        for index in indices { unretained[index]._withUnsafeGuaranteedRef(body) }
    }

    private func deliver(_ envelope: _EventEnvelope, _ run: Range<Int>) {
        // Unretained, like ``deliver(_:)``'s subscriptions: a strong load of the first one
        // retained and released it, and its target, on every dispatch (callgrind, S2).
        unretained[run.lowerBound]._withUnsafeGuaranteedRef { first in
            if run.count == 1 {
                first.target.deliver(envelope, for: first)
            } else {
                first.target.deliver(envelope, to: run, of: self)
            }
        }
    }
}

/// The route table of a bus's plain events as its dispatches read it: immutable, replaced whole
/// by each registration change, and read without a lock.
///
/// A dispatch counts itself in flight (``_DispatchesInFlight``) before it loads the table, and
/// leaves after delivering; the registry retires the table a change replaced to that count,
/// which releases it once no dispatch that could have loaded it is left. So a dispatch reads the
/// table and its routes without retaining them.
// @unchecked Sendable: `current` is atomic and names an immutable table
final class _PublishedRoutes: @unchecked Sendable {
    /// The address of the current table's storage (``_RouteTable/storage``); the table is
    /// retained by this object. Read by ``_RouteTable/deliver(_:routedBy:in:)``.
    fileprivate let current: Atomic<UInt>

    init() {
        let table = _RouteTable<_Route>()
        // Held by this object through its storage's address; released when replaced (`publish`) or in deinit.
        _ = Unmanaged.passRetained(table)
        current = Atomic(UInt(bitPattern: table.storage))
    }

    deinit {
        // The retain that init or the last `publish` took.
        _RouteTable<_Route>.owner(ofStorage: storage).release()
    }

    private var storage: UnsafeRawPointer {
        UnsafeRawPointer(bitPattern: current.load(ordering: .sequentiallyConsistent)).unsafelyUnwrapped
    }

    /// The current table, retained; for the registry's writers and slow readers.
    var routes: _RouteTable<_Route> {
        // Retained here for the caller; the current table is held by this object.
        _RouteTable<_Route>.owner(ofStorage: storage).takeUnretainedValue()
    }

    /// Publishes `table` in place of the current one, and returns the one it replaced, which the
    /// caller retires (``_DispatchesInFlight/retire(_:)``) once the registry lock is released.
    /// Called under the registry lock, so publications never race.
    func publish(_ table: _RouteTable<_Route>) -> _RouteTable<_Route> {
        // The new table's retain passes to this object; the replaced one's to the caller, who retires it.
        _ = Unmanaged.passRetained(table)
        let replaced = current.exchange(UInt(bitPattern: table.storage), ordering: .sequentiallyConsistent)
        return _RouteTable<_Route>.owner(ofStorage: UnsafeRawPointer(bitPattern: replaced).unsafelyUnwrapped)
            .takeRetainedValue()
    }
}

/// Routes by the `ObjectIdentifier` of an event type: a bus's routes of plain events, and a
/// pool snapshot's.
///
/// An open-addressing table (linear probing, at most half full) keyed by the address of the
/// type's metadata, hashed with one multiply: every dispatch looks its route up here, and type
/// addresses are unique and never chosen by an attacker, so a keyed hash buys nothing.
///
/// The table lives in one allocation, ``storage``, which a dispatch reads by its address alone
/// (``deliver(_:routedBy:in:)``), without a reference to the table to retain or borrow:
/// a ``Header``, then the keys, then the routes.
///
/// The table holds one strong reference per route. ``withRoute(_:_:)`` lends a route to its
/// body without retaining it, which is safe while nothing can mutate the table: a table is
/// filled before it is published (``_PublishedRoutes``, a pool snapshot) and never changed after.
// @unchecked Sendable: mutated only before it is published, then read-only
final class _RouteTable<Route: AnyObject>: @unchecked Sendable {
    /// The header, the keys (type addresses; `0` marks an empty slot), then the routes; replaced
    /// only by `grow`, before the table is published.
    private(set) var storage: UnsafeMutableRawPointer
    /// A power of two.
    private var capacity: Int
    private(set) var count = 0

    /// The first words of ``storage``: what a lookup needs besides the keys.
    struct Header {
        /// The table's address, unretained (``owner(ofStorage:)``).
        var owner: UInt
        /// How far a key's hash is shifted right to give its home slot: 64 − log₂ capacity.
        var shift: UInt
        /// `capacity − 1`.
        var mask: Int
        /// Where the routes start, after the keys.
        var routes: UnsafeMutablePointer<Unmanaged<Route>?>
    }

    // The parts of `storage`, bound when it was allocated (`allocateStorage`), valid until `grow` or deinit.
    private var keys: UnsafeMutablePointer<UInt> {
        (storage + MemoryLayout<Header>.stride).assumingMemoryBound(to: UInt.self)
    }
    private var routes: UnsafeMutablePointer<Unmanaged<Route>?> {
        storage.assumingMemoryBound(to: Header.self).pointee.routes
    }

    init() {
        capacity = 16
        storage = Self.allocateStorage(capacity: 16)
        // Unretained: the storage lives only as long as this table (freed in deinit).
        storage.assumingMemoryBound(to: Header.self).pointee.owner = UInt(
            bitPattern: Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        for slot in 0..<capacity where keys[slot] != 0 { routes[slot]?.release() }
        storage.deallocate()
    }

    /// Storage for `capacity` empty slots, its header written but for the owner's address,
    /// which the caller writes.
    private static func allocateStorage(capacity: Int) -> UnsafeMutableRawPointer {
        // Owned by the table and freed in deinit (or by the next `grow`).
        let storage = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<Header>.stride + capacity
                * (MemoryLayout<UInt>.stride + MemoryLayout<Unmanaged<Route>?>.stride),
            alignment: max(MemoryLayout<Header>.alignment, MemoryLayout<UInt>.alignment))
        // The header's words, then the keys, then the routes, each bound to its type here.
        let keys = (storage + MemoryLayout<Header>.stride).bindMemory(to: UInt.self, capacity: capacity)
        keys.initialize(repeating: 0, count: capacity)
        let routes = UnsafeMutableRawPointer(keys + capacity).bindMemory(to: Unmanaged<Route>?.self, capacity: capacity)
        routes.initialize(repeating: nil, count: capacity)
        storage.bindMemory(to: Header.self, capacity: 1).initialize(
            to: Header(
                owner: 0, shift: UInt(UInt.bitWidth - capacity.trailingZeroBitCount), mask: capacity - 1,
                routes: routes))
        return storage
    }

    /// The table whose storage is at `storage`, unretained.
    static func owner(ofStorage storage: UnsafeRawPointer) -> Unmanaged<_RouteTable> {
        // Valid while the table is: its storage is freed only by its deinit.
        Unmanaged.fromOpaque(
            UnsafeRawPointer(bitPattern: storage.assumingMemoryBound(to: Header.self).pointee.owner).unsafelyUnwrapped)
    }

    /// A table with the same routes, to change and publish in place of this one.
    func copy() -> _RouteTable {
        let copy = _RouteTable()
        for slot in 0..<capacity where keys[slot] != 0 {
            copy.insert(routes[slot].unsafelyUnwrapped.takeUnretainedValue(), for: keys[slot])
        }
        return copy
    }

    /// The route of `key`, retained for the caller.
    subscript(key: ObjectIdentifier) -> Route? {
        get { withRoute(key) { $0 } }
        set {
            if let newValue { insert(newValue, for: UInt(bitPattern: key)) } else { remove(UInt(bitPattern: key)) }
        }
    }

    /// Calls `body` with the route of `key` without retaining it; `nil` when there is none.
    @inline(__always)
    func withRoute<Result>(_ key: ObjectIdentifier, _ body: (Route) -> Result) -> Result? {
        let raw = UInt(bitPattern: key)
        var slot = home(of: raw)
        while true {
            let found = keys[slot]
            // Unretained: the table holds the route, and a published table never changes (see the type's notes).
            if found == raw { return routes[slot].unsafelyUnwrapped._withUnsafeGuaranteedRef(body) }
            if found == 0 { return nil }
            slot = (slot &+ 1) & (capacity &- 1)
        }
    }

    /// Every route.
    var values: [Route] {
        (0..<capacity).compactMap { keys[$0] != 0 ? routes[$0]?.takeUnretainedValue() : nil }
    }

    /// Fibonacci hashing of the address: the top bits of the product pick the slot.
    @inline(__always)
    private func home(of raw: UInt) -> Int {
        Int(truncatingIfNeeded: (raw &* 0x9E37_79B9_7F4A_7C15) >> UInt(UInt.bitWidth - capacity.trailingZeroBitCount))
    }

    private func insert(_ route: Route, for raw: UInt) {
        var slot = home(of: raw)
        while keys[slot] != 0 {
            if keys[slot] == raw {
                let old = routes[slot]
                // The table's one strong reference per route, released on replacement, removal or deinit.
                routes[slot] = .passRetained(route)
                old?.release()
                return
            }
            slot = (slot + 1) & (capacity - 1)
        }
        keys[slot] = raw
        // As above.
        routes[slot] = .passRetained(route)
        count += 1
        if count * 2 > capacity { grow() }
    }

    /// Removes `raw`, then shifts later entries of its probe run back so that no lookup stops
    /// early at the emptied slot.
    private func remove(_ raw: UInt) {
        var slot = home(of: raw)
        while keys[slot] != raw {
            if keys[slot] == 0 { return }
            slot = (slot + 1) & (capacity - 1)
        }
        routes[slot]?.release()
        var hole = slot
        var next = (hole + 1) & (capacity - 1)
        while keys[next] != 0 {
            let wanted = home(of: keys[next])
            // Move `next` into the hole unless its home lies cyclically in (hole, next].
            let stays = hole <= next ? (hole < wanted && wanted <= next) : (hole < wanted || wanted <= next)
            if !stays {
                keys[hole] = keys[next]
                routes[hole] = routes[next]
                hole = next
            }
            next = (next + 1) & (capacity - 1)
        }
        keys[hole] = 0
        routes[hole] = nil
        count -= 1
    }

    private func grow() {
        let oldStorage = storage
        let oldKeys = keys
        let oldRoutes = routes
        let oldCapacity = capacity
        capacity *= 2
        storage = Self.allocateStorage(capacity: capacity)
        // The same owner: both storages are this table's, bound by `allocateStorage`.
        storage.assumingMemoryBound(to: Header.self).pointee.owner =
            oldStorage.assumingMemoryBound(to: Header.self).pointee.owner
        // The old storage's retains move to the new one, and the old storage is freed.
        for slot in 0..<oldCapacity where oldKeys[slot] != 0 {
            var target = home(of: oldKeys[slot])
            while keys[target] != 0 { target = (target + 1) & (capacity - 1) }
            keys[target] = oldKeys[slot]
            routes[target] = oldRoutes[slot]
        }
        oldStorage.deallocate()
    }
}

extension _RouteTable where Route == _Route {
    /// Hands `envelope` to the route of `key` in the table that `published` names (numbered
    /// first when the route has latest-only listeners, ``_Route/latest``), and returns whether
    /// there was one: the lookup of every dispatch.
    ///
    /// It reads the table's storage by its address alone, and the route without retaining it:
    /// the table holds the route, and outlives a dispatch that is counted in flight
    /// (``_PublishedRoutes``).
    @inline(__always)
    static func deliver(_ envelope: _EventEnvelope, routedBy key: ObjectIdentifier, in published: _PublishedRoutes)
        -> Bool
    {
        let raw = UInt(bitPattern: key)
        // Valid while the table is (see the type's notes): its header, then its keys.
        let header = UnsafeMutableRawPointer(bitPattern: published.current.load(ordering: .sequentiallyConsistent))
            .unsafelyUnwrapped.assumingMemoryBound(to: Header.self)
        let keys = UnsafeRawPointer(header + 1).assumingMemoryBound(to: UInt.self)
        // `home(of:)`, written out.
        var slot = Int(truncatingIfNeeded: (raw &* 0x9E37_79B9_7F4A_7C15) >> header.pointee.shift)
        while true {
            let found = keys[slot]
            if found == raw { break }
            if found == 0 { return false }
            slot = (slot &+ 1) & header.pointee.mask
        }
        // Unretained: the table holds the route (above).
        header.pointee.routes[slot].unsafelyUnwrapped._withUnsafeGuaranteedRef { route in
            if let latest = route.latest {
                route.deliver(envelope.sequenced(latest.advance()))
            } else {
                route.deliver(envelope)
            }
        }
        return true
    }
}

/// Reads `event` as an `E`: how a subscription's handler takes its event out of the route's
/// envelope. The route table is keyed by the event's exact dynamic type (``_RouteTable``), so a
/// subscription for `E` only receives events that hold exactly an `E`; that is what makes the
/// unchecked reads below valid, and why they live beside the table.
///
/// Where `E` is known at compile time (a handler built by ``_ErasedHandler`` in the caller's
/// module) and stored in an existential's inline buffer without references (trivially
/// copyable, at most three words, word-aligned), it is loaded from the buffer: one load.
/// Otherwise the existential is opened and its value taken as is, with no dynamic cast;
/// another type falls back to a checked cast.
@inlinable
func _project<E: Eventable>(_ event: any Eventable, as _: E.Type) -> E {
    if _isPOD(E.self) && MemoryLayout<E>.size <= 3 * MemoryLayout<UnsafeRawPointer>.size
        && MemoryLayout<E>.alignment <= MemoryLayout<UnsafeRawPointer>.alignment
    {
        // Unchecked in release builds: the route table is keyed by the event's exact type
        // (`_RouteTable`), and a value of another type in the buffer would still be plain bits
        // of the same size, never a reference.
        assert(ObjectIdentifier(type(of: event)) == ObjectIdentifier(E.self), "routed by exact type")
        return withUnsafePointer(to: event) { UnsafeRawPointer($0).load(as: E.self) }
    }
    func open<T: Eventable>(_ value: T) -> E {
        // The same type, compared on this line: the cast only tells the compiler so.
        if T.self == E.self { return unsafeBitCast(value, to: E.self) }
        return value as! E
    }
    return open(event)
}
