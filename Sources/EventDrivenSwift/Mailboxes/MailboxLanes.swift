/// The pending entries of one receiver, kept in the ten lanes that give the order of SPEC D3.
///
/// Stacked entries run first, highest priority first and newest first within a priority; queued
/// entries run next, highest priority first and oldest first within a priority.
struct _MailboxLanes<Entry> {
    private static var laneCount: Int { 2 * EventPriority.allCases.count }

    private var lanes: [[Entry]]
    /// Bit `i` is set while lane `i` holds entries.
    private var occupied: UInt16 = 0
    /// The number of entries in all lanes.
    private(set) var count = 0

    init() {
        lanes = Array(repeating: [], count: Self.laneCount)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private static func lane(_ method: EventDispatchMethod, _ priority: EventPriority) -> Int {
        // Stacked lanes 0...4 come before queued lanes 5...9; each group runs highest first.
        (method == .stack ? 0 : EventPriority.allCases.count) + priority.rawValue
    }

    mutating func append(_ entry: Entry, method: EventDispatchMethod, priority: EventPriority) {
        let lane = Self.lane(method, priority)
        lanes[lane].append(entry)
        occupied |= 1 << lane
        count += 1
    }

    /// Calls `body` with every entry in D3 order; stops early when `body` returns `false`.
    /// - Returns: How many entries were visited.
    @discardableResult
    func forEachInOrder(_ body: (Entry) -> Bool) -> Int {
        var visited = 0
        var remaining = occupied
        while remaining != 0 {
            let lane = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            let isStack = lane < EventPriority.allCases.count
            let entries = lanes[lane]
            if isStack {
                for entry in entries.reversed() {
                    visited += 1
                    if !body(entry) { return visited }
                }
            } else {
                for entry in entries {
                    visited += 1
                    if !body(entry) { return visited }
                }
            }
        }
        return visited
    }

    /// Removes and returns the entry that `isOlder` ranks oldest among the first entry of each
    /// lane (lanes are in arrival order). For a full bounded mailbox; O(lane length).
    mutating func removeOldest(by isOlder: (Entry, Entry) -> Bool) -> Entry? {
        var oldestLane: Int?
        var remaining = occupied
        while remaining != 0 {
            let lane = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            if let current = oldestLane, !isOlder(lanes[lane][0], lanes[current][0]) { continue }
            oldestLane = lane
        }
        guard let lane = oldestLane else { return nil }
        let entry = lanes[lane].removeFirst()
        if lanes[lane].isEmpty { occupied &= ~(1 << lane) }
        count -= 1
        return entry
    }

    /// Empties every lane, keeping their storage for reuse.
    mutating func removeAll() {
        var remaining = occupied
        while remaining != 0 {
            let lane = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            lanes[lane].removeAll(keepingCapacity: true)
        }
        occupied = 0
        count = 0
    }
}
