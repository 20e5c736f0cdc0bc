// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

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
/// This type is the mailbox's storage and holds its raw memory, with the drainer's buffers
/// (DrainerBuffers.swift). Its declaration and chunk layout are here; the two steps every event
/// takes (addressing a node, taking a free one) are in Mailbox.swift, beside the enqueue and the
/// drain loop that call them, and the recycling of nodes in MailboxNodes+Recycling.swift.
// @unchecked Sendable: chunk addresses and links are atomics; an item is touched only by the node's owner
final class _MailboxNodes: @unchecked Sendable {
    /// The chunks' addresses (0 until allocated): chunk `k` holds `64 << k` nodes.
    let chunks: UnsafeMutablePointer<Atomic<UInt>>
    /// Where each chunk keeps its items, from its base address (after its links).
    let itemOffsets: UnsafeMutablePointer<Int>
    // Instance constants rather than static ones: a node is addressed without a call, even in a
    // debug build.
    let firstChunkShift = 6
    let firstChunkSize = 64

    // The free list's head on a cache line of its own: every producer takes a node from it, and
    // the drainer reads the fields above for every node it addresses (``_CacheLinePadding``).
    private let beforeFreeHead = _CacheLinePadding()
    /// `generation << 32 | index` of the first free node.
    let freeHead = Atomic<UInt64>(0)
    /// The next index never handed out.
    let fresh = Atomic<UInt64>(1)
    private let afterFreeHead = _CacheLinePadding()

    private static var chunkCount: Int { 27 }

    init() {
        // Owned by the node storage and freed in deinit, after the mailbox moved every item out.
        chunks = .allocate(capacity: Self.chunkCount)
        itemOffsets = .allocate(capacity: Self.chunkCount)
        for chunk in 0..<Self.chunkCount {
            (chunks + chunk).initialize(to: Atomic(0))
            (itemOffsets + chunk).initialize(to: Self.itemsStart(64 << chunk))
        }
    }

    /// Frees the chunks; the mailbox has moved every item out (see ``_Mailbox``'s `deinit`).
    deinit {
        for chunk in 0..<Self.chunkCount {
            let address = chunks[chunk].load(ordering: .acquiring)
            guard address != 0 else { continue }
            let base = UnsafeMutableRawPointer(bitPattern: address).unsafelyUnwrapped
            let size = firstChunkSize << chunk
            // Valid: `allocate(_:)` bound the chunk's links to `Atomic<UInt64>`; nothing uses the chunk any more.
            base.assumingMemoryBound(to: Atomic<UInt64>.self).deinitialize(count: size)
            base.deallocate()
        }
        chunks.deinitialize(count: Self.chunkCount)
        chunks.deallocate()
        itemOffsets.deallocate()
    }
}

/// How a mailbox's node storage lays out and allocates its chunks (see ``_MailboxNodes``).
extension _MailboxNodes {
    /// A chunk of `size` nodes: the links first, then the items.
    static func chunkByteCount(_ size: Int) -> Int {
        itemsStart(size) + MemoryLayout<_MailboxItem>.stride * size
    }

    /// Where a chunk of `size` nodes keeps its items.
    @inline(__always)
    static func itemsStart(_ size: Int) -> Int {
        let align = MemoryLayout<_MailboxItem>.alignment
        return (MemoryLayout<Atomic<UInt64>>.stride * size + align - 1) / align * align
    }

    @inline(never)
    func allocate(_ chunk: Int) -> UnsafeMutableRawPointer {
        let size = firstChunkSize << chunk
        // Owned by `chunks` once published, freed in deinit; a chunk is never freed while the mailbox lives.
        let base = UnsafeMutableRawPointer.allocate(
            byteCount: Self.chunkByteCount(size), alignment: max(16, MemoryLayout<_MailboxItem>.alignment))
        base.bindMemory(to: Atomic<UInt64>.self, capacity: size)
        for index in 0..<size {
            // Valid: bound to `Atomic<UInt64>` on the line above, for the `size` links.
            (base.assumingMemoryBound(to: Atomic<UInt64>.self) + index).initialize(to: Atomic(0))
        }
        let (won, existing) = chunks[chunk].compareExchange(
            expected: 0, desired: UInt(bitPattern: base), ordering: .acquiringAndReleasing)
        if won { return base }
        // Valid: bound and initialized above; this chunk lost the race and was never published.
        base.assumingMemoryBound(to: Atomic<UInt64>.self).deinitialize(count: size)
        base.deallocate()
        return UnsafeMutableRawPointer(bitPattern: existing).unsafelyUnwrapped
    }
}
