import Synchronization

/// What one mailbox node carries: a delivery of an event to one subscription, or a barrier.
enum _MailboxItem: Sendable {
    /// Run the subscription's handler for the envelope. The node holds the subscription until
    /// the delivery has run, so a listener removed meanwhile still settles it.
    case delivery(_EventEnvelope, _Subscription)
    /// Run once everything pushed before it has been handled.
    case barrier(@Sendable () -> Void)
}

/// The nodes of one mailbox, addressed by 32-bit index (0 is none), and the free list that
/// recycles them: steady-state enqueueing allocates nothing.
///
/// Nodes live in chunks of growing size (64, 128, 256, … nodes), allocated by whichever producer
/// first needs one and published with a compare-and-exchange; a chunk is never freed while the
/// mailbox lives, so an index, once handed out, always names valid memory. A node is owned by
/// one party at a time: the free list, the producer that took it, the mailbox's pending stack
/// (``_MailboxState``), or the drainer that took the stack.
///
/// The free list is a stack whose head word packs a generation with the index, so that a
/// producer whose pop was overtaken (the node popped, used and freed again meanwhile) fails its
/// compare-and-exchange instead of corrupting the list. Each node's link is atomic because a
/// producer reading a free node's link may race with the producer that popped it; the loser's
/// compare-and-exchange then fails.
///
/// This type is the mailbox's storage and holds its only raw memory.
// @unchecked Sendable: chunk addresses and links are atomics; an item is touched only by the node's owner
final class _MailboxNodes: @unchecked Sendable {
    /// The chunks' addresses (0 until allocated): chunk `k` holds `64 << k` nodes.
    private let chunks: UnsafeMutablePointer<Atomic<UInt>>
    /// `generation << 32 | index` of the first free node.
    private let freeHead = Atomic<UInt64>(0)
    /// The next index never handed out.
    private let fresh = Atomic<UInt64>(1)

    private static let chunkCount = 27
    private static let firstChunkShift = 6

    init() {
        chunks = .allocate(capacity: Self.chunkCount)
        for index in 0..<Self.chunkCount { (chunks + index).initialize(to: Atomic(0)) }
    }

    /// Frees the chunks; the mailbox has moved every item out (see ``_Mailbox``'s `deinit`).
    deinit {
        for chunk in 0..<Self.chunkCount {
            let address = chunks[chunk].load(ordering: .acquiring)
            guard address != 0 else { continue }
            let base = UnsafeMutableRawPointer(bitPattern: address).unsafelyUnwrapped
            let size = Self.firstChunkSize << chunk
            base.assumingMemoryBound(to: Atomic<UInt64>.self).deinitialize(count: size)
            base.deallocate()
        }
        chunks.deinitialize(count: Self.chunkCount)
        chunks.deallocate()
    }

    private static let firstChunkSize = 1 << firstChunkShift
    private static let linkStride = MemoryLayout<Atomic<UInt64>>.stride

    // MARK: Addressing

    /// The chunk and the position in it of node `index` (at least 1).
    @inline(__always)
    private static func locate(_ index: UInt32) -> (chunk: Int, offset: Int) {
        let position = Int(index) - 1 + firstChunkSize
        let chunk = (Int.bitWidth - 1 - position.leadingZeroBitCount) - firstChunkShift
        return (chunk, position - (firstChunkSize << chunk))
    }

    /// A chunk of `size` nodes: the links first, then the items.
    private static func chunkByteCount(_ size: Int) -> Int {
        itemsStart(size) + MemoryLayout<_MailboxItem>.stride * size
    }

    /// Where a chunk of `size` nodes keeps its items.
    private static func itemsStart(_ size: Int) -> Int {
        let linksEnd = linkStride * size
        let align = MemoryLayout<_MailboxItem>.alignment
        return (linksEnd + align - 1) / align * align
    }

    /// The base address of the chunk that holds `chunk`, allocating it on first use.
    @inline(__always)
    private func base(of chunk: Int) -> UnsafeMutableRawPointer {
        let address = chunks[chunk].load(ordering: .acquiring)
        if address != 0 { return UnsafeMutableRawPointer(bitPattern: address).unsafelyUnwrapped }
        return allocate(chunk)
    }

    @inline(never)
    private func allocate(_ chunk: Int) -> UnsafeMutableRawPointer {
        let size = Self.firstChunkSize << chunk
        let base = UnsafeMutableRawPointer.allocate(
            byteCount: Self.chunkByteCount(size), alignment: max(16, MemoryLayout<_MailboxItem>.alignment))
        base.bindMemory(to: Atomic<UInt64>.self, capacity: size)
        for index in 0..<size {
            (base.assumingMemoryBound(to: Atomic<UInt64>.self) + index).initialize(to: Atomic(0))
        }
        let (won, existing) = chunks[chunk].compareExchange(
            expected: 0, desired: UInt(bitPattern: base), ordering: .acquiringAndReleasing)
        if won { return base }
        base.assumingMemoryBound(to: Atomic<UInt64>.self).deinitialize(count: size)
        base.deallocate()
        return UnsafeMutableRawPointer(bitPattern: existing).unsafelyUnwrapped
    }

    /// The link of node `index`: the node below it in a stack.
    @inline(__always)
    private func link(_ index: UInt32) -> UnsafeMutablePointer<Atomic<UInt64>> {
        let (chunk, offset) = Self.locate(index)
        return base(of: chunk).assumingMemoryBound(to: Atomic<UInt64>.self) + offset
    }

    /// The item slot of node `index`.
    @inline(__always)
    private func item(_ index: UInt32) -> UnsafeMutablePointer<_MailboxItem> {
        let (chunk, offset) = Self.locate(index)
        let size = Self.firstChunkSize << chunk
        return (base(of: chunk) + Self.itemsStart(size)).assumingMemoryBound(to: _MailboxItem.self) + offset
    }

    // MARK: Owning a node

    /// Takes a free node (a new one when none is free) and stores `item` in it; the caller owns
    /// the node. `nil` when the mailbox has used every index (2³² − 1 nodes).
    @inline(__always)
    func take(storing item: consuming _MailboxItem) -> UInt32? {
        guard let index = pop() else { return nil }
        self.item(index).initialize(to: item)
        return index
    }

    private func pop() -> UInt32? {
        var head = freeHead.load(ordering: .acquiring)
        while true {
            let index = UInt32(truncatingIfNeeded: head)
            if index == 0 { return takeFresh() }
            let below = UInt32(truncatingIfNeeded: link(index).pointee.load(ordering: .relaxed))
            let next = (head >> 32 &+ 1) << 32 | UInt64(below)
            let (exchanged, current) = freeHead.compareExchange(
                expected: head, desired: next, ordering: .acquiring)
            if exchanged { return index }
            head = current
        }
    }

    @inline(never)
    private func takeFresh() -> UInt32? {
        let index = fresh.add(1, ordering: .relaxed).oldValue
        return index <= UInt64(UInt32.max) ? UInt32(index) : nil
    }

    /// Moves the item out of node `index`, which the caller owns; the node's slot is then empty.
    @inline(__always)
    func moveItem(_ index: UInt32) -> _MailboxItem {
        item(index).move()
    }

    /// Names `below` as the node under `index` in a stack, and keeps `tag` with it (what the
    /// drainer must know of the item without reading it: its lane).
    @inline(__always)
    func setLink(_ index: UInt32, to below: UInt32, tag: UInt32 = 0) {
        link(index).pointee.store(UInt64(tag) << 32 | UInt64(below), ordering: .relaxed)
    }

    /// The node under `index` in a stack, and the tag kept with it.
    @inline(__always)
    func linked(below index: UInt32) -> (below: UInt32, tag: UInt32) {
        let value = link(index).pointee.load(ordering: .relaxed)
        return (UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32))
    }

    /// Returns the nodes from `top` down to `bottom` (linked, their items moved out) to the free
    /// list, with one compare-and-exchange.
    func free(top: UInt32, bottom: UInt32) {
        var head = freeHead.load(ordering: .relaxed)
        while true {
            setLink(bottom, to: UInt32(truncatingIfNeeded: head))
            let next = (head >> 32 &+ 1) << 32 | UInt64(top)
            let (exchanged, current) = freeHead.compareExchange(
                expected: head, desired: next, ordering: .releasing)
            if exchanged { return }
            head = current
        }
    }
}
