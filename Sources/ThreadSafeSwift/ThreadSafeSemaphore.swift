// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

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
public struct ThreadSafeSemaphore<Value> {
    private let storage: LockedValue<Value>

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value) {
        storage = LockedValue(wrappedValue)
    }

    /// The current value; reading and writing each take the lock once.
    public var wrappedValue: Value {
        get { storage.withLock { $0 } }
        nonmutating set { storage.withLock { $0 = newValue } }
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
        try storage.withLock(body)
    }
}

/// Sendable when the value is: the wrapper shares its storage, so a non-Sendable value would
/// otherwise reach two threads through copies of the wrapper.
extension ThreadSafeSemaphore: Sendable where Value: Sendable {}
