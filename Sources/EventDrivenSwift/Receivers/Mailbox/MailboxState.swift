// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The control state of one mailbox, packed in one word that producers and the drainer change
/// with a compare-and-exchange each: the pending items, whether the drainer is parked, and
/// whether the mailbox accepts anything.
///
/// A pure state machine in the shape of swift-async-algorithms' channels: every transition is a
/// `mutating func` that returns what its caller must do, and none touches memory, a thread or a
/// clock. ``_Mailbox`` loads the word, runs a transition on a copy, and stores the copy back with
/// one compare-and-exchange (again on failure), so each transition is atomic and the machine can
/// be tested alone, and checked over every interleaving of its callers
/// (`MailboxProtocolModelTests`).
///
/// The pending items form a stack: `top` is the node pushed last (0 when none), and each node
/// names the one pushed before it. The drainer takes the whole stack at once.
///
/// The control states, from the drainer's side:
/// - **idle** (`isParked`): nothing pending, no drain running; the next push wakes the drainer.
/// - **scheduled**: items pending, a drain requested or running.
/// - **draining**: a drain running, nothing pending yet.
/// - **closed** (``Phase/closed``): nothing is accepted or run any more.
///
/// A push into an idle mailbox is the only one that wakes the drainer, and only the drainer
/// parks, in the same step that finds nothing pending: a wake-up can never be lost.
struct _MailboxState: Equatable, Sendable {
    /// Whether the mailbox accepts new items.
    enum Phase: UInt64, Sendable {
        /// Accepts items.
        case open = 0
        /// Accepts no deliveries; what is pending still runs, then the drainer finishes.
        case draining = 1
        /// Accepts and runs nothing.
        case closed = 2
    }

    /// The node pushed last; 0 when nothing is pending.
    private(set) var top: UInt32
    /// The deliveries pending (a barrier counts none).
    private(set) var count: Int
    /// `true` while the drainer is idle: no drain is requested or running.
    private(set) var isParked: Bool
    private(set) var phase: Phase

    /// The most deliveries that can be pending in one mailbox: the bits the word keeps for them.
    static let maximumCount = (1 << 28) - 1

    /// A new mailbox: open, idle, empty.
    init() {
        top = 0
        count = 0
        isParked = true
        phase = .open
    }

    // MARK: The word

    /// The state packed as `phase (2 bits) | parked (1) | count (28) | top (32)`.
    var word: UInt64 {
        UInt64(top) | UInt64(count) << 32 | (isParked ? 1 << 60 : 0) | phase.rawValue << 61
    }

    init(word: UInt64) {
        top = UInt32(truncatingIfNeeded: word)
        count = Int((word >> 32) & UInt64(Self.maximumCount))
        isParked = word & (1 << 60) != 0
        phase = Phase(rawValue: word >> 61) ?? .closed
    }

    // MARK: Producers

    /// What a producer does after ``push(_:deliveries:capacity:)``.
    enum PushAction: Equatable, Sendable {
        /// Pushed: the node must name `below` as the one pushed before it (written before the
        /// word is stored). Wake the drainer when `wake`.
        case pushed(below: UInt32, wake: Bool)
        /// Not pushed: the mailbox is full; apply its overflow policy.
        case full
        /// Not pushed: the mailbox no longer accepts deliveries.
        case refused
    }

    /// Pushes the node `node`, which stands for `deliveries` deliveries, if the mailbox is open
    /// and fewer than `capacity` deliveries are pending.
    mutating func push(_ node: UInt32, deliveries: Int, capacity: Int) -> PushAction {
        var word = self.word
        let action = Self.push(node, deliveries: deliveries, capacity: capacity, onto: &word)
        self = _MailboxState(word: word)
        return action
    }

    /// ``push(_:deliveries:capacity:)`` on the packed word itself: the transition every enqueue
    /// makes, written on the bits so that it is one call.
    static func push(_ node: UInt32, deliveries: Int, capacity: Int, onto word: inout UInt64) -> PushAction {
        // phase (bits 61...62) open, count (32...59) below the capacity and the word's room.
        guard word >> 61 == Phase.open.rawValue else { return .refused }
        let count = Int((word >> 32) & ((1 << 28) - 1))
        guard count < capacity && count < (1 << 28) - 1 else { return .full }
        let below = UInt32(truncatingIfNeeded: word)
        let wake = word & (1 << 60) != 0
        // Still open, no longer parked, one more pending, `node` on top.
        word = UInt64(count + deliveries) << 32 | UInt64(node)
        return .pushed(below: below, wake: wake)
    }

    /// What ``pushBarrier(_:)`` leaves to do.
    enum BarrierAction: Equatable, Sendable {
        /// Pushed behind everything pending: it runs after the batch that takes it. The node must
        /// name `below` as the one pushed before it.
        case pushed(below: UInt32)
        /// Nothing is pending or running, or nothing will ever run again: run it now.
        case runNow
    }

    /// Pushes a barrier, which runs once everything pushed before it has been handled.
    mutating func pushBarrier(_ node: UInt32) -> BarrierAction {
        if phase == .closed || (isParked && top == 0) { return .runNow }
        let below = top
        top = node
        return .pushed(below: below)
    }

    // MARK: The drainer

    /// What the drainer does after ``take(mayIdle:)``.
    enum TakeAction: Equatable, Sendable {
        /// The stack from `top` down, `count` deliveries, is the drainer's: run it.
        case run(top: UInt32, count: Int)
        /// Nothing pending; look again later.
        case lookAgain
        /// Nothing pending, and the drainer is now idle: the next push wakes it.
        case park
        /// The mailbox is finished: the drainer stops.
        case finish
    }

    /// Takes everything pending. `mayIdle` lets an empty mailbox go idle.
    mutating func take(mayIdle: Bool) -> TakeAction {
        if phase == .closed { return .finish }
        if top != 0 {
            defer {
                top = 0
                count = 0
            }
            return .run(top: top, count: count)
        }
        if phase == .draining {
            phase = .closed
            return .finish
        }
        guard mayIdle else { return .lookAgain }
        isParked = true
        return .park
    }

    // MARK: Closing

    /// What ``close()`` leaves to do.
    struct CloseAction: Equatable, Sendable {
        /// The stack that was pending (0 when none) and its deliveries: discard them.
        var top: UInt32
        var count: Int
        /// The drainer is idle: wake it, so that it finds the mailbox finished.
        var wakeDrainer: Bool
    }

    /// Closes the mailbox at once: it accepts and runs nothing more.
    mutating func close() -> CloseAction {
        let action = CloseAction(top: top, count: count, wakeDrainer: isParked && phase != .closed)
        phase = .closed
        top = 0
        count = 0
        isParked = false
        return action
    }

    /// Stops accepting deliveries; what is pending still runs, then the drainer finishes.
    /// Returns `true` when the drainer is idle and must be woken to finish.
    mutating func closeAfterDraining() -> Bool {
        guard phase == .open else { return false }
        phase = .draining
        defer { isParked = false }
        return isParked
    }
}
