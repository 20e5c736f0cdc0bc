/// The pending entries of one receiver, kept in the ten lanes that give the order of SPEC D3.
///
/// Stacked entries run first, highest priority first and newest first within a priority; queued
/// entries run next, highest priority first and oldest first within a priority.
///
/// The ten lanes live in one block that the value owns and mutates in place: an append moves the
/// entry straight into its lane, and the drainer moves each entry out as it runs it, so an entry
/// is never copied between its enqueue and its delivery. The value cannot be copied (it is moved
/// or swapped), so a mutation needs no uniqueness check.
struct _MailboxLanes<Entry>: ~Copyable {
    static var priorityCount: Int { 5 }
    static var laneCount: Int { 2 * priorityCount }

    private let lanes: UnsafeMutablePointer<_Lane<Entry>>
    /// Bit `i` is set while lane `i` holds entries.
    private var occupied: UInt16 = 0
    /// The number of entries in all lanes.
    private(set) var count = 0

    init() {
        assert(Self.priorityCount == EventPriority.allCases.count)
        lanes = .allocate(capacity: Self.laneCount)
        lanes.initialize(repeating: _Lane(), count: Self.laneCount)
    }

    deinit {
        for lane in 0..<Self.laneCount { lanes[lane].release() }
        lanes.deinitialize(count: Self.laneCount)
        lanes.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Stacked lanes 0...4 come before queued lanes 5...9; each group runs highest first.
    @inline(__always)
    private static func lane(_ method: EventDispatchMethod, _ priority: EventPriority) -> Int {
        (method == .stack ? 0 : priorityCount) + priority.rawValue
    }

    @inline(__always)
    private static func isStackLane(_ lane: Int) -> Bool { lane < priorityCount }

    /// Appends the entry `makeEntry` returns, dispatched with `method` and `priority`, if that
    /// needs no allocation; otherwise makes no entry and returns `false`.
    @inline(__always)
    mutating func appendIfRoom(
        method: EventDispatchMethod, priority: EventPriority, _ makeEntry: () -> Entry
    ) -> Bool {
        let lane = Self.lane(method, priority)
        guard lanes[lane].hasRoom else { return false }
        lanes[lane].append(makeEntry())
        occupied |= 1 << lane
        count += 1
        return true
    }

    mutating func append(_ entry: consuming Entry, method: EventDispatchMethod, priority: EventPriority) {
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
            let finished = lanes[lane].forEach(newestFirst: Self.isStackLane(lane)) { entry in
                visited += 1
                return body(entry)
            }
            if !finished { return visited }
        }
        return visited
    }

    /// Hands the address of each entry to `body` in D3 order, as long as `proceed()` returns
    /// `true` before each one, and removes the entry once `body` has returned. `body` takes the
    /// entry over: it moves it out, or leaves one that needs no destruction. Entries not handed
    /// out stay, in order.
    /// - Returns: How many entries were handed out.
    @discardableResult
    mutating func removeEachInOrder(while proceed: () -> Bool, _ body: (UnsafeMutablePointer<Entry>) -> Void) -> Int {
        guard occupied != 0 else { return 0 }
        var taken = 0
        while occupied != 0 {
            let lane = occupied.trailingZeroBitCount
            let lanePointer = lanes + lane
            let fromBack = Self.isStackLane(lane)
            while !lanePointer.pointee.isEmpty {
                guard proceed() else {
                    count -= taken
                    return taken
                }
                taken += 1
                lanePointer.pointee.removeEnd(fromBack: fromBack, body)
            }
            lanePointer.pointee.trim()
            occupied &= ~(1 << lane)
        }
        count -= taken
        return taken
    }

    /// Removes and returns the entry that `isOlder` ranks oldest among the first entry of each
    /// lane (lanes are in arrival order). For a full bounded mailbox.
    mutating func removeOldest(by isOlder: (Entry, Entry) -> Bool) -> Entry? {
        var oldestLane: Int?
        var remaining = occupied
        while remaining != 0 {
            let lane = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            if let current = oldestLane, !isOlder(lanes[lane].first, lanes[current].first) {
                continue
            }
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
        guard occupied != 0 else { return }
        var remaining = occupied
        while remaining != 0 {
            let lane = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            lanes[lane].removeAll()
            lanes[lane].trim()
        }
        occupied = 0
        count = 0
    }

    /// How many entries the lanes can hold without allocating.
    var capacity: Int {
        (0..<Self.laneCount).reduce(0) { $0 + lanes[$1].capacity }
    }
}

// @unchecked Sendable: owned alone (~Copyable), and reached only under the mailbox's lock or by its drainer
extension _MailboxLanes: @unchecked Sendable where Entry: Sendable {}

/// One lane: entries in fixed-size chunks, whose live entries are the positions `head..<end`
/// counted across the chunks, so that entries can be moved out at either end without shifting
/// the rest, and a growing lane never moves what it holds.
///
/// Up to ``retainedChunks`` chunks are kept when the lane empties and reused from the start, so a
/// mailbox takes the next burst of events of that size without allocating or touching fresh
/// memory; the chunks of a larger burst are freed once the lane has emptied.
/// A chunk that falls wholly before `head` while the lane is not empty (entries removed from the
/// front of a lane that keeps receiving, as a bounded mailbox does) is moved to the end for reuse.
///
/// It owns its chunks but is not a safe value type: only `_MailboxLanes` holds lanes, in place,
/// and releases them in its `deinit`.
struct _Lane<Entry> {
    /// The chunks, in order; `chunkCount` of the `chunkSlots` slots are in use.
    private var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Entry>>?
    private var chunkSlots = 0
    private var chunkCount = 0
    private var head = 0
    private var end = 0

    /// Entries per chunk: `1 << chunkShift`.
    private static var chunkShift: Int { 7 }
    private static var chunkSize: Int { 1 << chunkShift }
    /// How many chunks an emptied lane keeps for reuse (1,024 entries).
    static var retainedChunks: Int { 8 }

    init() {}

    var isEmpty: Bool { head == end }

    /// The address of the entry at `position`, which must be within the allocated chunks.
    @inline(__always)
    private func slot(_ position: Int) -> UnsafeMutablePointer<Entry> {
        chunks.unsafelyUnwrapped[position >> Self.chunkShift] + (position & (Self.chunkSize - 1))
    }

    /// The oldest entry; the lane must not be empty.
    var first: Entry { slot(head).pointee }

    /// Calls `body` with each live entry, oldest first or newest first, until it returns
    /// `false`. Returns `false` when `body` stopped it.
    @discardableResult
    func forEach(newestFirst: Bool, _ body: (Entry) -> Bool) -> Bool {
        if newestFirst {
            var position = end
            while position > head {
                position -= 1
                if !body(slot(position).pointee) { return false }
            }
        } else {
            var position = head
            while position < end {
                if !body(slot(position).pointee) { return false }
                position += 1
            }
        }
        return true
    }

    /// Whether an append needs no allocation: a chunk has a free slot, or the first one can be
    /// reused (see ``addChunk()``).
    @inline(__always)
    var hasRoom: Bool { end < chunkCount << Self.chunkShift || head >= Self.chunkSize }

    @inline(__always)
    mutating func append(_ entry: consuming Entry) {
        if end == chunkCount << Self.chunkShift { addChunk() }
        slot(end).initialize(to: entry)
        end += 1
    }

    /// Adds a chunk at the end, reusing the first one when it holds no live entry any more.
    private mutating func addChunk() {
        if head >= Self.chunkSize, let chunks {
            let reused = chunks[0]
            for index in 1..<chunkCount { chunks[index - 1] = chunks[index] }
            chunks[chunkCount - 1] = reused
            head -= Self.chunkSize
            end -= Self.chunkSize
            return
        }
        if chunkCount == chunkSlots {
            let slots = Swift.max(4, chunkSlots * 2)
            let grown = UnsafeMutablePointer<UnsafeMutablePointer<Entry>>.allocate(capacity: slots)
            if let chunks {
                grown.moveInitialize(from: chunks, count: chunkCount)
                chunks.deallocate()
            }
            chunks = grown
            chunkSlots = slots
        }
        (chunks.unsafelyUnwrapped + chunkCount).initialize(to: .allocate(capacity: Self.chunkSize))
        chunkCount += 1
    }

    /// Moves the oldest entry out; the lane must not be empty.
    @inline(__always)
    mutating func removeFirst() -> Entry {
        let entry = slot(head).move()
        head += 1
        if head == end {
            head = 0
            end = 0
        }
        return entry
    }

    /// Hands the address of the newest entry (`fromBack`) or the oldest to `body`, which takes
    /// the entry over (see ``_MailboxLanes/removeEachInOrder(while:_:)``), then removes it; the
    /// lane must not be empty.
    @inline(__always)
    mutating func removeEnd(fromBack: Bool, _ body: (UnsafeMutablePointer<Entry>) -> Void) {
        body(slot(fromBack ? end - 1 : head))
        if fromBack { end -= 1 } else { head += 1 }
        if head == end {
            head = 0
            end = 0
        }
    }

    /// Destroys every live entry, keeping the chunks.
    mutating func removeAll() {
        while head < end {
            _ = slot(head).move()
            head += 1
        }
        head = 0
        end = 0
    }

    /// How many entries the lane can hold without allocating.
    var capacity: Int { chunkCount << Self.chunkShift }

    /// Frees the chunks beyond ``retainedChunks`` of an empty lane.
    @inline(__always)
    mutating func trim() {
        guard chunkCount > Self.retainedChunks, head == end, let chunks else { return }
        for index in Self.retainedChunks..<chunkCount { chunks[index].deallocate() }
        chunkCount = Self.retainedChunks
    }

    /// Destroys the entries and frees the chunks; the lane is empty afterwards.
    mutating func release() {
        removeAll()
        if let chunks {
            for index in 0..<chunkCount { chunks[index].deallocate() }
            chunks.deallocate()
        }
        chunks = nil
        chunkSlots = 0
        chunkCount = 0
    }
}
