import Synchronization

/// A property wrapper whose reads and writes are atomic, even for values wider than a machine word.
///
/// ```swift
/// @ThreadSafeSemaphore var temperature: Float = 0
/// _temperature.withLock { $0 += 1 }   // atomic read-modify-write
/// ```
///
/// Copies of the wrapper share one storage, so a value captured by a closure stays in step
/// with the property it came from.
@propertyWrapper
public struct ThreadSafeSemaphore<Value>: @unchecked Sendable {  // every access goes through `storage.mutex`
    private final class Storage: @unchecked Sendable {  // the value is only reached through `mutex`
        let mutex: Mutex<Value>
        init(_ value: sending Value) { mutex = Mutex(value) }
    }

    private let storage: Storage

    /// Wraps `wrappedValue`.
    public init(wrappedValue: sending Value) {
        storage = Storage(wrappedValue)
    }

    /// The current value; reading and writing each take the lock once.
    public var wrappedValue: Value {
        get { storage.mutex.withLock { value in UnsafeTransfer(value) }.value }
        nonmutating set {
            let newValue = UnsafeTransfer(newValue)
            storage.mutex.withLock { $0 = newValue.value }
        }
    }

    /// The wrapper itself, so that `$property.withLock { … }` reads naturally.
    public var projectedValue: ThreadSafeSemaphore<Value> { self }

    /// Runs `body` with exclusive access to the value and returns its result.
    ///
    /// Use it for read-modify-write: `_counter.withLock { $0 += 1 }`.
    /// Do not call back into the same property from `body`: the lock is not recursive.
    @discardableResult
    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.mutex.withLock { (value) throws(Failure) -> UnsafeTransfer<Result> in
            UnsafeTransfer(try body(&value))
        }.value
    }
}

/// Carries a value across an isolation boundary that the surrounding lock already protects.
private struct UnsafeTransfer<T>: @unchecked Sendable {  // only used inside `Mutex.withLock`
    let value: T
    init(_ value: T) { self.value = value }
}
