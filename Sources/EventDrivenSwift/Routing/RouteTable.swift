/// Routes by the `ObjectIdentifier` of an event type: a bus's routes of plain events, and a
/// pool snapshot's.
///
/// An open-addressing table (linear probing, at most half full) keyed by the address of the
/// type's metadata, hashed with one multiply: every dispatch looks its route up here, and type
/// addresses are unique and never chosen by an attacker, so a keyed hash buys nothing.
///
/// The table holds one strong reference per route. ``withRoute(_:_:)`` lends a route to its
/// body without retaining it, which is safe while nothing can mutate the table: a bus mutates
/// its table only under its registry lock, and a pool snapshot never after it is published.
// @unchecked Sendable: mutated only under the bus's registry lock, or before its pool snapshot is published
final class _RouteTable<Route: AnyObject>: @unchecked Sendable {
    /// Type addresses; `0` marks an empty slot.
    private var keys: UnsafeMutablePointer<UInt>
    private var routes: UnsafeMutablePointer<Unmanaged<Route>?>
    /// A power of two.
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 16
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: 0, count: capacity)
        routes = .allocate(capacity: capacity)
        routes.initialize(repeating: nil, count: capacity)
    }

    deinit {
        for slot in 0..<capacity where keys[slot] != 0 { routes[slot]?.release() }
        keys.deallocate()
        routes.deallocate()
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
                routes[slot] = .passRetained(route)
                old?.release()
                return
            }
            slot = (slot + 1) & (capacity - 1)
        }
        keys[slot] = raw
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
        let oldKeys = keys
        let oldRoutes = routes
        let oldCapacity = capacity
        capacity *= 2
        keys = .allocate(capacity: capacity)
        keys.initialize(repeating: 0, count: capacity)
        routes = .allocate(capacity: capacity)
        routes.initialize(repeating: nil, count: capacity)
        for slot in 0..<oldCapacity where oldKeys[slot] != 0 {
            var target = home(of: oldKeys[slot])
            while keys[target] != 0 { target = (target + 1) & (capacity - 1) }
            keys[target] = oldKeys[slot]
            routes[target] = oldRoutes[slot]
        }
        oldKeys.deallocate()
        oldRoutes.deallocate()
    }
}
