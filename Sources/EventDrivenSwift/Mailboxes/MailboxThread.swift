import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A persistent thread that drains one mailbox: it parks while the mailbox is idle, wakes when
/// a producer finds it idle, and exits once the mailbox is finished.
final class _MailboxThread: Sendable {
    private let wakeSignal = DispatchSemaphore(value: 0)
    private let exitSignal = DispatchSemaphore(value: 0)
    private let hasExited = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)
    /// How long the drainer keeps looking, yielding between looks, after its last batch
    /// before it parks: longer than a typical wake-up of a parked thread on a virtual machine
    /// (tens of microseconds), so that a reply in a request-response exchange finds it awake.
    private let spinNanoseconds: UInt64
    let name: String

    init(name: String, spinNanoseconds: UInt64 = 40_000) {
        self.name = name
        self.spinNanoseconds = spinNanoseconds
    }

    /// Starts the thread on `mailbox`. The thread holds the mailbox, never its owner.
    func start(_ mailbox: _Mailbox) {
        let thread = Thread { [self] in
            threadID.store(_MailboxThread.currentThreadID, ordering: .releasing)
            _ReceiverContext.$current.withValue(_ReceiverContext(mailbox: mailbox)) {
                run(mailbox)
            }
            hasExited.store(true, ordering: .releasing)
            exitSignal.signal()
        }
        thread.name = name
        thread.start()
    }

    private func run(_ mailbox: _Mailbox) {
        var mayIdle = false
        var lastBusy = DispatchTime._eventNow.uptimeNanoseconds
        var streaming = false
        while true {
            switch mailbox.runBatch(mayIdle: mayIdle) {
            case .ran:
                if streaming && (2..<Self.streamingBatch).contains(mailbox.lastBatchCount) { letBatchGrow() }
                streaming = true
                mayIdle = false
                lastBusy = DispatchTime._eventNow.uptimeNanoseconds
            case .empty:
                streaming = false
                sched_yield()
                mayIdle = DispatchTime._eventNow.uptimeNanoseconds &- lastBusy >= spinNanoseconds
            case .idle:
                mayIdle = false
                streaming = false
                wakeSignal.wait()
                lastBusy = DispatchTime._eventNow.uptimeNanoseconds
            case .finished:
                return
            }
        }
    }

    /// A batch of at least two events but fewer than this, taken right after another batch,
    /// means events are streaming in faster than they are picked up one small batch at a time.
    /// (A batch of one taken right after another is a request-response exchange: waiting would
    /// only delay the next reply.)
    private static var streamingBatch: Int { 64 }
    /// How many times the drainer yields its core before taking the next batch of a stream.
    private static var streamingYields: Int { 16 }

    /// Lets a stream's next batch grow before taking it. Taking two or three events at a time
    /// makes the producer and the drainer pass the mailbox's lock and lanes back and forth
    /// between cores for every few events, which halves throughput; a few microseconds of
    /// waiting (without touching the mailbox) turns that into one hand-over per few dozen events.
    /// A drainer that found its mailbox empty on the previous look does not wait, so a lone
    /// event after a pause is picked up at once.
    private func letBatchGrow() {
        for _ in 0..<Self.streamingYields { sched_yield() }
    }

    func wake() {
        wakeSignal.signal()
    }

    /// `true` when called on this thread.
    var isCurrent: Bool {
        threadID.load(ordering: .acquiring) == _MailboxThread.currentThreadID
    }

    /// Blocks until the thread has exited; returns at once when called on the thread itself.
    func waitForExit() {
        guard !isCurrent, !hasExited.load(ordering: .acquiring) else { return }
        exitSignal.wait()
        exitSignal.signal()
    }

    private static var currentThreadID: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: Int(bitPattern: pthread_self()))
        #else
            UInt(pthread_self())
        #endif
    }
}
