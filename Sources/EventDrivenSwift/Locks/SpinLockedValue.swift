import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value and the spin lock that guards it, for the dispatch path's short critical sections:
/// a mailbox's state, a pool's core, and on Linux a bus's registry (see ``_RegistryLockedValue``).
///
/// Holders keep it for nanoseconds to a few microseconds and never across user code. Releasing a
/// `pthread_mutex_t` takes an atomic read-modify-write, which stalls a producer whenever the
/// drainer on another core has just pulled the lock's cache line away; releasing this lock is
/// a plain store. A waiter spins briefly, then yields its core until the holder is done.
///
/// Built on `Atomic` acquire/release operations, which ThreadSanitizer understands.
// @unchecked Sendable: `value` is only reached between a successful acquire of `word` and its release
final class _SpinLockedValue<Value: ~Copyable>: @unchecked Sendable {
    private let word = Atomic<UInt32>(0)
    @exclusivity(unchecked) private var value: Value

    init(_ value: consuming Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        if !word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { lockSlowly() }
        defer { word.store(0, ordering: .releasing) }
        return try body(&value)
    }

    @inline(never)
    private func lockSlowly() {
        var attempts = 0
        while true {
            if word.load(ordering: .relaxed) == 0
                && word.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
            {
                return
            }
            attempts += 1
            if attempts >= 64 {
                attempts = 0
                sched_yield()
            }
        }
    }
}
