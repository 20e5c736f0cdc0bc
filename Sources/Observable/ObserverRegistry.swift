// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import ThreadSafeSwift

/// The storage behind ``Observable``: a thread-safe list of weakly held observers.
///
/// Embed one in a type that cannot inherit from ``ObservableClass``.
public final class ObserverRegistry: Sendable {
    // @unchecked Sendable: entries are reached only under the lock of `entries`; the observers
    // themselves are handed to any thread that asks, as the original's Observable does.
    private struct Entry: @unchecked Sendable {
        let id: ObjectIdentifier
        weak var object: AnyObject?
    }

    private let entries = LockedValue<[Entry]>([])

    /// Creates an empty registry.
    public init() {}

    /// Adds `observer` (held weakly); adding it again keeps one entry.
    public func add(_ observer: AnyObject) {
        let id = ObjectIdentifier(observer)
        entries.withLock { entries in
            entries.removeAll { $0.object == nil }
            guard !entries.contains(where: { $0.id == id }) else { return }
            entries.append(Entry(id: id, object: observer))
        }
    }

    /// Removes `observer`.
    public func remove(_ observer: AnyObject) {
        let id = ObjectIdentifier(observer)
        entries.withLock { entries in entries.removeAll { $0.id == id || $0.object == nil } }
    }

    /// The observers still alive, in the order they were added.
    public var liveObservers: [AnyObject] {
        entries.withLock { entries in entries.compactMap { $0.object } }
    }

    /// How many observers are still alive.
    public var count: Int { liveObservers.count }

    /// Calls `body` for every live observer conforming to `ObserverProtocol`. The lock is not held
    /// while `body` runs, so `body` may add or remove observers.
    public func forEach<ObserverProtocol>(_ body: (ObserverProtocol) throws -> Void) rethrows {
        for case let observer as ObserverProtocol in liveObservers {
            try body(observer)
        }
    }
}
