// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Something the pool state machine tracks by identity.
protocol _EventPoolStateMember {
    var id: Int { get }
}

/// Work that may run only once every dispatch that used an older snapshot has finished.
struct _EventPoolDeferred<Member> {
    /// Runs once every snapshot older than this generation is released.
    let generation: UInt64
    /// The threads that received events before the change; a handover waits for them.
    let previous: [Member]
    /// Threads leaving the pool; they drain and stop.
    let retirees: [Member]
    /// `true` when new events are held until `previous` has handled what it accepted.
    let isHandover: Bool
    /// Called when the deferred work is ready, such as a stop waiting for dispatches in flight.
    let onReady: (@Sendable () -> Void)?
}

/// The membership, snapshots and hand-overs of one pool: a pure state machine, changed only
/// under the pool's lock. Each transition returns what the caller must do once the lock is
/// released, and nothing here touches a thread or a lock.
///
/// Dispatches read an immutable snapshot of the members, numbered by `generation`. A change
/// installs a new snapshot and leaves the old one "unreleased" until the dispatches that are
/// still using it finish; work that must not race with those dispatches (stopping a retired
/// thread, waiting for threads to hand over) is deferred until every older snapshot is released.
struct _EventPoolState<Member: _EventPoolStateMember, Held> {
    typealias Waiter = @Sendable () -> Void

    /// The threads that receive new events.
    private(set) var members: [Member] = []
    /// The generation of the current snapshot.
    private(set) var generation: UInt64 = 0
    private(set) var isStopped = false
    /// Events waiting for a hand-over to finish, in arrival order.
    private(set) var held: [Held] = []
    /// Retired threads still handling what they accepted, with the drain waiters for each.
    private var retiring: [Int: (member: Member, waiters: [Waiter])] = [:]
    private var unreleased: Set<UInt64> = []
    private var deferred: [_EventPoolDeferred<Member>] = []
    private var pendingHandovers = 0
    private var isFlushing = false
    private var afterHandover: [Waiter] = []
    private var nextID = 0
    /// Whether membership changes hold events back until the old threads are done.
    let ordersHandovers: Bool

    init(ordersHandovers: Bool) {
        self.ordersHandovers = ordersHandovers
    }

    // MARK: Membership

    mutating func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    /// Threads leaving the pool that have not yet finished.
    var retiringCount: Int { retiring.count }

    /// The threads leaving the pool that have not yet finished, in no particular order.
    var retiringMembers: [Member] { retiring.values.map(\.member) }

    /// Adds threads. Returns the generation of the superseded snapshot.
    mutating func add(_ newMembers: [Member]) -> UInt64 {
        let previous = members
        members += newMembers
        return supersede(previous: previous, retirees: [], isHandover: ordersHandovers && !previous.isEmpty)
    }

    /// Removes the threads with `ids` from the snapshot; they stop once no dispatch can reach
    /// them. Returns the superseded generation, or `nil` when none of them is a member.
    mutating func retire(_ ids: Set<Int>) -> UInt64? {
        let previous = members
        let retirees = members.filter { ids.contains($0.id) }
        guard !retirees.isEmpty else { return nil }
        members.removeAll { ids.contains($0.id) }
        for retiree in retirees { retiring[retiree.id] = (retiree, []) }
        return supersede(previous: previous, retirees: retirees, isHandover: ordersHandovers)
    }

    /// The members' subscriptions changed; returns the superseded generation.
    mutating func rebuild() -> UInt64 {
        supersede(previous: members, retirees: [], isHandover: false)
    }

    /// Stops the pool: no member receives anything more. Returns the members, the held events,
    /// the waiters for a hand-over (to run now) and the superseded generation; `onReady` runs
    /// once no dispatch uses an older snapshot.
    mutating func stop(
        onReady: @escaping Waiter
    ) -> (members: [Member], held: [Held], waiters: [Waiter], superseded: UInt64)? {
        guard !isStopped else { return nil }
        isStopped = true
        let stopped = members
        let dropped = held
        let waiters = afterHandover
        members = []
        held = []
        afterHandover = []
        isFlushing = false
        let old = generation
        generation += 1
        unreleased.insert(old)
        deferred.append(
            _EventPoolDeferred(generation: generation, previous: [], retirees: [], isHandover: false, onReady: onReady))
        return (stopped, dropped, waiters, old)
    }

    private mutating func supersede(previous: [Member], retirees: [Member], isHandover: Bool) -> UInt64 {
        let old = generation
        generation += 1
        unreleased.insert(old)
        if isHandover { pendingHandovers += 1 }
        if isHandover || !retirees.isEmpty {
            deferred.append(
                _EventPoolDeferred(
                    generation: generation, previous: isHandover ? previous : [], retirees: retirees,
                    isHandover: isHandover, onReady: nil))
        }
        return old
    }

    /// No dispatch uses the snapshot of `generation` any more. Returns the deferred work that
    /// is now ready, oldest first.
    mutating func released(_ releasedGeneration: UInt64) -> [_EventPoolDeferred<Member>] {
        unreleased.remove(releasedGeneration)
        let oldestInUse = unreleased.min() ?? .max
        let ready = deferred.filter { $0.generation <= oldestInUse }
        deferred.removeAll { $0.generation <= oldestInUse }
        return ready
    }

    /// A retired thread has handled everything it accepted and stopped. Returns its waiters.
    mutating func retireeFinished(_ id: Int) -> [Waiter] {
        retiring.removeValue(forKey: id)?.waiters ?? []
    }

    /// Adds `waiter` to every retiring thread; returns how many it was added to.
    mutating func waitForRetirees(_ waiter: @escaping Waiter) -> Int {
        for id in retiring.keys { retiring[id]?.waiters.append(waiter) }
        return retiring.count
    }

    // MARK: Hand-over

    /// `true` while new events must be held rather than routed.
    var isHolding: Bool { pendingHandovers > 0 || isFlushing }

    mutating func hold(_ event: Held) {
        held.append(event)
    }

    /// The old threads of one hand-over have handled what they accepted. Returns `true` when
    /// the caller must start releasing the held events with ``nextFlush()``.
    mutating func handoverFinished() -> Bool {
        pendingHandovers -= 1
        guard pendingHandovers == 0, !isFlushing, !isStopped else { return false }
        isFlushing = true
        return true
    }

    enum FlushStep {
        /// Route these events, in order, then ask again.
        case route([Held])
        /// A new hand-over began; it resumes releasing when it finishes.
        case paused
        /// Nothing is held any more; run these waiters.
        case done([Waiter])
    }

    /// The next events to release. Events that arrive meanwhile are held behind them, so the
    /// arrival order is kept.
    mutating func nextFlush() -> FlushStep {
        if pendingHandovers > 0 && !isStopped {
            isFlushing = false
            return .paused
        }
        if held.isEmpty || isStopped {
            isFlushing = false
            defer { afterHandover = [] }
            return .done(afterHandover)
        }
        defer { held = [] }
        return .route(held)
    }

    /// Runs `waiter` once no event is held any more; returns `false` (and keeps nothing) when
    /// nothing is held now.
    mutating func waitForHandover(_ waiter: @escaping Waiter) -> Bool {
        guard isHolding, !isStopped else { return false }
        afterHandover.append(waiter)
        return true
    }
}

extension _EventPoolDeferred: Sendable where Member: Sendable {}
extension _EventPoolState: Sendable where Member: Sendable, Held: Sendable {}
