// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import EventDrivenSwift

#if canImport(Glibc)
    import Glibc
#endif

/// The lock of a bus's registry, its mailboxes and its pools' cores (issue 12.6): exclusive, and a
/// waiter blocks in the kernel (with priority inheritance) instead of spinning.
@Suite("L3 (issue 12.6): the dispatch path's lock blocks with priority inheritance")
struct PILockTests {
    @Test("threads that contend for the lock each see it alone: no increment is lost")
    func exclusive() async {
        let counter = _PILockedValue(0)
        let threads = 4
        let perThread = 50_000
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            Thread.detachNewThread {
                for _ in 0..<perThread {
                    counter.withLock { value in
                        let seen = value
                        value = seen + 1
                    }
                }
                done.signal()
            }
        }
        for _ in 0..<threads { await coreWait(done) }
        #expect(counter.withLock { $0 } == threads * perThread)
    }

    #if canImport(Glibc)
        /// CPU time the current thread has used, in nanoseconds.
        private static func threadCPUTime() -> Int {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return time.tv_sec * 1_000_000_000 + time.tv_nsec
        }

        @Test("a thread waiting for the lock sleeps in the kernel: it uses no CPU while the holder keeps it")
        func waiterSleeps() async {
            let lock = _PILockedValue(0)
            let held = DispatchSemaphore(value: 0)
            let waited = LockedValue<(cpu: Int, sawHolder: Bool)?>(nil)
            let done = DispatchSemaphore(value: 0)
            let holdFor: useconds_t = 300_000
            Thread.detachNewThread {
                lock.withLock { value in
                    held.signal()
                    // Keeps the lock for a while: what is measured is the waiter's CPU time meanwhile.
                    usleep(holdFor)
                    value = 1
                }
            }
            Thread.detachNewThread {
                held.wait()
                let before = Self.threadCPUTime()
                let seen = lock.withLock { $0 }
                let after = Self.threadCPUTime()
                waited.withLock { $0 = (after - before, seen == 1) }
                done.signal()
            }
            await coreWait(done)
            let result = waited.withLock { $0 }
            #expect(result?.sawHolder == true)
            // A spinning (or yielding) waiter would use most of the 300 ms; a sleeping one, almost none.
            #expect((result?.cpu ?? .max) < 60_000_000)
        }
    #endif
}
