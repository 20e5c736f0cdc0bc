// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reflection reads the value only under the lock, and only if the lock is free: a `dump` or
/// a failing `#expect` from inside ``LockedValue/withLock(_:)`` shows `<locked>` rather than
/// deadlocking or reading the value while `body` changes it.
extension LockedValue: CustomReflectable, CustomStringConvertible {
    /// `LockedValue(value)`, or `LockedValue(<locked>)` while the lock is held.
    public var description: String {
        "LockedValue(\(currentValue.map { String(describing: $0) } ?? "<locked>"))"
    }

    /// The value, or `"<locked>"` while the lock is held.
    public var customMirror: Mirror {
        Mirror(self, children: ["value": currentValue.map { $0 as Any } ?? "<locked>"], displayStyle: .class)
    }

    /// A copy of the value, if the lock is free now.
    private var currentValue: Value? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { unlock() }
        return value
    }
}
