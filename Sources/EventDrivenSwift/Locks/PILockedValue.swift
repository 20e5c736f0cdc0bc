// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

#if canImport(Darwin)
    import os
#else
    internal import CEventDrivenSwiftShims
#endif

/// A value and the priority-inheriting (PI) lock that guards it, for the dispatch path's short
/// critical sections: a bus's registry, a mailbox's state, a pool's core.
///
/// A waiter blocks in the kernel and the holder inherits its priority, so a low-priority thread
/// holding the lock can never keep a high-priority one waiting behind a third (the priority
/// inversion of spinning locks such as `OSSpinLock`). On Linux a waiter first looks again a
/// bounded few times (about a microsecond, never yielding) before it sleeps.
/// - On Apple platforms the lock is `os_unfair_lock`.
/// - On Linux it is a priority-inheriting futex (`FUTEX_LOCK_PI`): the word holds the owner's
///   thread id, and while no one waits, taking and releasing it are one compare-and-exchange each,
///   with no system call. Only a contended lock asks the kernel, which queues the waiter and
///   boosts the owner. ThreadSanitizer sees the atomic operations on the word, and, around the
///   kernel's hand-over, an acquiring load by the new owner and a releasing one by the old.
///
/// Holders keep it for nanoseconds to a few microseconds and never across user code. Taking it
/// twice on one thread is a programmer error and stops the program (on Linux with a message).
final class _PILockedValue<Value: ~Copyable> {
    #if canImport(Darwin)
        private let lock: UnsafeMutablePointer<os_unfair_lock>
    #else
        /// 0 when free, else the owner's thread id (and the kernel's waiters bit).
        private let word: UnsafeMutablePointer<Atomic<UInt32>>
    #endif
    @exclusivity(unchecked) private var value: Value

    init(_ value: consuming Value) {
        self.value = value
        #if canImport(Darwin)
            // Owned by this object, freed in deinit: the lock must not move while taken.
            lock = .allocate(capacity: 1)
            lock.initialize(to: os_unfair_lock())
        #else
            // Owned by this object, freed in deinit: the kernel keys waiters by the word's address.
            word = .allocate(capacity: 1)
            word.initialize(to: Atomic(0))
        #endif
    }

    deinit {
        #if canImport(Darwin)
            lock.deinitialize(count: 1)
            lock.deallocate()
        #else
            word.deinitialize(count: 1)
            word.deallocate()
        #endif
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
            return try body(&value)
        #else
            let owner = c_eds_current_thread_id()
            if !word.pointee.compareExchange(expected: 0, desired: owner, ordering: .acquiring).exchanged {
                _PIFutex.lockWaiting(word, owner: owner)
            }
            defer {
                if !word.pointee.compareExchange(expected: owner, desired: 0, ordering: .releasing).exchanged {
                    _PIFutex.unlockWaking(word)
                }
            }
            return try body(&value)
        #endif
    }
}

#if !canImport(Darwin)
    /// The slow paths of ``_PILockedValue`` on Linux, out of line and not generic, so that the
    /// uncontended `withLock` of every specialization stays two compare-and-exchanges.
    enum _PIFutex {
        /// The lock is taken: wait in the kernel, lending this thread's priority to the owner.
        @inline(never)
        static func lockWaiting(_ word: UnsafeMutablePointer<Atomic<UInt32>>, owner: UInt32) {
            // Holders keep the lock for nanoseconds: look again a few times (about a microsecond)
            // before asking the kernel, which costs a system call on both sides. The look is
            // bounded and never yields, so it cannot keep a holder from running for long.
            for _ in 0..<Self.looksBeforeWaiting {
                c_eds_cpu_relax()
                if word.pointee.load(ordering: .relaxed) == 0
                    && word.pointee.compareExchange(expected: 0, desired: owner, ordering: .acquiring).exchanged
                {
                    return
                }
            }
            // Valid: `Atomic<UInt32>` is laid out as a `UInt32`, and the lock's owner keeps `word` allocated.
            let result = c_eds_futex_lock_pi(UnsafeMutableRawPointer(word).assumingMemoryBound(to: UInt32.self))
            precondition(result == 0, "EventDrivenSwift: a lock of the bus was taken twice by one thread")
            // The kernel made this thread the owner; this load is the acquire that pairs with
            // the previous owner's release in `unlockWaking`.
            _ = word.pointee.load(ordering: .acquiring)
        }

        /// How often a thread that finds the lock taken looks again before it waits in the kernel.
        static var looksBeforeWaiting: Int { 64 }

        /// Threads wait (the kernel set the waiters bit): hand the lock to the first of them.
        @inline(never)
        static func unlockWaking(_ word: UnsafeMutablePointer<Atomic<UInt32>>) {
            // Changes nothing; it is the release the next owner's acquire pairs with.
            _ = word.pointee.wrappingAdd(0, ordering: .releasing)
            // Valid: as in `lockWaiting`; the word is a `UInt32` that outlives every holder.
            c_eds_futex_unlock_pi(UnsafeMutableRawPointer(word).assumingMemoryBound(to: UInt32.self))
        }
    }
#endif

// @unchecked Sendable: `value` is only reached while the lock is held, and is itself Sendable,
// so what a holder takes out may cross threads
extension _PILockedValue: @unchecked Sendable where Value: Sendable & ~Copyable {}
