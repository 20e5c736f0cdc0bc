#if canImport(Darwin)
    import Darwin
    #if canImport(os)
        import os
    #endif
#endif

/// The lock of a bus's registry, which a producer holds for a whole fan-out.
///
/// On Apple platforms it is `os_unfair_lock`: a waiter blocks in the kernel and the holder
/// inherits its priority, so a low-QoS producer holding the registry can never starve a
/// high-QoS one (the priority inversion that spinning locks such as `OSSpinLock` had).
///
/// On Linux it is the mailbox's spin lock (``_SpinLockedValue``): there threads of ordinary
/// scheduling policy share the CPU fairly, so a waiter that yields lets a preempted holder run.
/// The alternatives that block with priority inheritance cost the dispatch path far more than
/// the 10% budget of this design: measured by callgrind per S6 dispatch (428 instructions with
/// the spin lock), the toolchain's `Mutex` (a PI futex) added 76 and a `PTHREAD_PRIO_INHERIT`
/// mutex 148.
#if canImport(Darwin)
    typealias _RegistryLockedValue<Value: ~Copyable> = _UnfairLockedValue<Value>

    /// A value guarded by an `os_unfair_lock`.
    // @unchecked Sendable: `value` is only reached while `lock` is held
    final class _UnfairLockedValue<Value: ~Copyable>: @unchecked Sendable {
        private let lock: UnsafeMutablePointer<os_unfair_lock>
        @exclusivity(unchecked) private var value: Value

        init(_ value: consuming Value) {
            self.value = value
            lock = .allocate(capacity: 1)
            lock.initialize(to: os_unfair_lock())
        }

        deinit {
            lock.deinitialize(count: 1)
            lock.deallocate()
        }

        /// Runs `body` with exclusive access to the value and returns its result.
        @inline(__always)
        func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
            return try body(&value)
        }
    }
#else
    typealias _RegistryLockedValue<Value: ~Copyable> = _SpinLockedValue<Value>
#endif
