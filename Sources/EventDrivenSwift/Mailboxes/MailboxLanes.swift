/// The pending entries of one receiver, kept in the ten lanes that give the order of SPEC D3.
///
/// Stacked entries run first, highest priority first and newest first within a priority; queued
/// entries run next, highest priority first and oldest first within a priority.
///
/// The lanes live in one fixed block of ten arrays that is mutated in place: an append moves the
/// entry straight into its lane (no outer-array uniqueness check, no copy of the entry), and a
/// visit borrows the entries where they are. Copying a `_MailboxLanes` shares the block until
/// one of the copies is mutated, which then copies it first (copy on write).
struct _MailboxLanes<Entry> {
    private var storage = _LaneStorage<Entry>()
    /// Bit `i` is set while lane `i` holds entries.
    private var occupied: UInt16 = 0
    /// The number of entries in all lanes.
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Stacked lanes 0...4 come before queued lanes 5...9; each group runs highest first.
    @inline(__always)
    private static func lane(_ method: EventDispatchMethod, _ priority: EventPriority) -> Int {
        (method == .stack ? 0 : _LaneStorage<Entry>.priorityCount) + priority.rawValue
    }

    @inline(__always)
    private static func isStackLane(_ lane: Int) -> Bool { lane < _LaneStorage<Entry>.priorityCount }

    @inline(__always)
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    mutating func append(_ entry: consuming Entry, method: EventDispatchMethod, priority: EventPriority) {
        let lane = Self.lane(method, priority)
        makeUnique()
        storage.lanes[lane].append(entry)
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
            let isStack = Self.isStackLane(lane)
            let stop = storage.lanes[lane].withUnsafeBufferPointer { entries -> Bool in
                if isStack {
                    var index = entries.count
                    while index > 0 {
                        index -= 1
                        visited += 1
                        if !body(entries[index]) { return true }
                    }
                } else {
                    for index in entries.indices {
                        visited += 1
                        if !body(entries[index]) { return true }
                    }
                }
                return false
            }
            if stop { return visited }
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
            if let current = oldestLane, !isOlder(storage.lanes[lane][0], storage.lanes[current][0]) { continue }
            oldestLane = lane
        }
        guard let lane = oldestLane else { return nil }
        makeUnique()
        let entry = storage.lanes[lane].removeFirst()
        if storage.lanes[lane].isEmpty { occupied &= ~(1 << lane) }
        count -= 1
        return entry
    }

    /// Empties every lane, keeping their storage for reuse.
    mutating func removeAll() {
        guard occupied != 0 else { return }
        makeUnique()
        var remaining = occupied
        while remaining != 0 {
            let lane = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            storage.lanes[lane].removeAll(keepingCapacity: true)
        }
        occupied = 0
        count = 0
    }
}

/// The ten lane arrays of a `_MailboxLanes`, in one block that is mutated in place.
final class _LaneStorage<Entry> {
    static var priorityCount: Int { 5 }
    static var laneCount: Int { 2 * priorityCount }

    let lanes: UnsafeMutablePointer<ContiguousArray<Entry>>

    init() {
        assert(Self.priorityCount == EventPriority.allCases.count)
        lanes = .allocate(capacity: Self.laneCount)
        lanes.initialize(repeating: [], count: Self.laneCount)
    }

    private init(copying other: _LaneStorage<Entry>) {
        lanes = .allocate(capacity: Self.laneCount)
        lanes.initialize(from: other.lanes, count: Self.laneCount)
    }

    /// An independent copy, for copy on write.
    func copy() -> _LaneStorage<Entry> { _LaneStorage(copying: self) }

    deinit {
        lanes.deinitialize(count: Self.laneCount)
        lanes.deallocate()
    }
}
