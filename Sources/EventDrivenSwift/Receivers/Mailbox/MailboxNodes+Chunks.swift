// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

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
}
