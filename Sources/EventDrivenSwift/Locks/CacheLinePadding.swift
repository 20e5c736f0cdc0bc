// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// 64 unused bytes: a stored property of this type keeps the fields declared before it and the
/// fields declared after it on different cache lines, wherever the object starts.
///
/// Two threads that touch different fields of one cache line still pass the line between their
/// cores. The mailbox's control word and free list head take a locked instruction from the
/// dispatching thread on every event, while its drainer reads the fields beside them for every
/// node; a subscription's reference count takes the dispatching thread's retain on every event,
/// while the drainer reads the subscription's handler and interest for every delivery. Padding
/// puts each side's fields on a line of its own (Benchmarks/RESULTS.md).
///
/// Swift lays a class's stored properties out in declaration order (the release build's
/// offsets, `objdump -d`: the free list's head at 0x70 of `_MailboxNodes`, after 64 bytes of
/// padding), so 64 bytes between two fields always put them on different cache lines.
struct _CacheLinePadding: Sendable {
    private let bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
}
