// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// When a drainer may go idle, and when it lets a stream's next batch grow: the waiting policy
/// shared by mailbox threads and by drains on a global dispatch queue.
///
/// - After its last batch the drainer keeps looking, yielding its core between looks, for the
///   linger time, then may go idle. Waking an idle drainer costs tens of microseconds on a
///   virtual machine, so a reply in a request-response exchange, or the next event of a burst,
///   finds it still looking.
/// - A batch of at least two events but fewer than ``streamingBatch``, taken right after another
///   batch, means events stream in faster than they are picked up: the drainer yields its core
///   ``streamingYields`` times before the next take. Taking two or three events at a time makes
///   the producer and the drainer pass the mailbox's lock and lanes between cores every few
///   events, which halves throughput. A batch of one after another (request-response) and the
///   first batch after a pause never wait.
///
/// A linger of zero turns both off (the main queue, an `OperationQueue`): the drainer goes idle
/// as soon as nothing is pending, and never yields.
struct _DrainPacing {
    private let lingerNanoseconds: UInt64
    private var lastBusy: UInt64
    private var isStreaming = false
    /// Whether the next look may leave the mailbox idle.
    private(set) var mayIdle: Bool

    static var streamingBatch: Int { 64 }
    static var streamingYields: Int { 16 }

    init(lingerNanoseconds: UInt64) {
        self.lingerNanoseconds = lingerNanoseconds
        mayIdle = lingerNanoseconds == 0
        lastBusy = lingerNanoseconds == 0 ? 0 : DispatchTime._eventNanoseconds
    }

    /// After a batch of `batchCount` events ran.
    mutating func ran(batchCount: Int) {
        guard lingerNanoseconds > 0 else { return }
        if isStreaming && (2..<Self.streamingBatch).contains(batchCount) {
            for _ in 0..<Self.streamingYields { sched_yield() }
        }
        isStreaming = true
        mayIdle = false
        lastBusy = DispatchTime._eventNanoseconds
    }

    /// After a look that found nothing pending (only while idling is not yet allowed).
    mutating func foundEmpty() {
        isStreaming = false
        sched_yield()
        mayIdle = DispatchTime._eventNanoseconds &- lastBusy >= lingerNanoseconds
    }

    /// After the drainer was woken from idle.
    mutating func woke() {
        guard lingerNanoseconds > 0 else { return }
        isStreaming = false
        mayIdle = false
        lastBusy = DispatchTime._eventNanoseconds
    }
}
