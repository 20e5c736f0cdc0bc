// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value and the lock that guards it, travelling together so that nobody can touch the value
/// without the lock.
///
/// ```swift
/// let counts = LockedValue([String: Int]())
/// counts.withLock { $0["events", default: 0] += 1 }
/// ```
///
/// Built on `pthread_mutex_t`, which ThreadSanitizer understands, so races are reported only
/// where they exist. The lock is not recursive: do not call `withLock` again from `body`.
public final class LockedValue<Value> {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Reached only under `mutex`, which already makes every access exclusive: the runtime's
    /// dynamic exclusivity check (a thread-local access set per access) would only add cost.
    /// Visible to the inlinable `withLock` so that callers reach it without an accessor call;
    /// nothing else in this module touches it.
    @usableFromInline @exclusivity(unchecked) var value: Value

    /// Guards `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @inlinable
    @discardableResult
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body(&value)
    }

    @inlinable
    func lock() {
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "pthread_mutex_lock failed: \(result)")
    }

    @inlinable
    func unlock() {
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "pthread_mutex_unlock failed: \(result)")
    }
}

// @unchecked Sendable: `value` is only reached while `mutex` is held. Only a `Sendable` value may
// cross threads this way, as with swift-nio's `NIOLockedValueBox`: a non-Sendable value handed
// out of `withLock` could otherwise be used on two threads at once.
extension LockedValue: @unchecked Sendable where Value: Sendable {}
