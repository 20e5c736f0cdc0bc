// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

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
    /// How long the drainer keeps looking after its last batch before it parks (see
    /// ``_DrainPacing``).
    private let lingerNanoseconds: UInt64
    /// The descriptive name, for errors, logs and interceptors.
    let name: String
    /// The name the thread carries in the system, within Linux's 15 bytes (``_ThreadName``).
    let systemName: String

    init(name: String, systemName: String, lingerNanoseconds: UInt64 = 40_000) {
        self.name = name
        self.systemName = systemName
        self.lingerNanoseconds = lingerNanoseconds
    }

    /// Starts the thread on `mailbox`. The thread holds the mailbox, never its owner.
    func start(_ mailbox: _Mailbox) {
        let thread = Thread { [self] in
            _ThreadName.setCurrent(systemName)
            threadID.store(_MailboxThread.currentThreadID, ordering: .releasing)
            _ReceiverContext.withCurrent(mailbox) {
                run(mailbox)
            }
            hasExited.store(true, ordering: .releasing)
            exitSignal.signal()
        }
        thread.name = systemName
        thread.start()
    }

    private func run(_ mailbox: _Mailbox) {
        var pacing = _DrainPacing(lingerNanoseconds: lingerNanoseconds)
        while true {
            switch mailbox.runBatch(mayIdle: pacing.mayIdle) {
            case .ran, .sliceEnded:  // no deadline: a batch is never cut short here
                pacing.ran(batchCount: mailbox.lastBatchCount)
            case .empty:
                pacing.foundEmpty()
            case .idle:
                wakeSignal.wait()
                pacing.woke()
            case .finished:
                return
            }
        }
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
