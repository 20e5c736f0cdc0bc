// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Sends each event to the next thread of the pool, wrapping around after the last one.
///
/// The default balancer of ``EventPool``. It counts events, not threads, so it keeps working
/// for any number of events and while the pool grows or shrinks.
public struct EventPoolRoundRobinBalancer: EventPoolBalancing {
    let counter = _EventPoolCounter()

    /// Creates a balancer that starts with the first thread.
    public init() {}

    /// Returns the next position, modulo the number of threads.
    public func selectMember(for event: any Eventable, metadata: EventMetadata, among members: EventPoolMembers) -> Int
    {
        Int(counter.next() % UInt(members.count))
    }
}

/// A shared, wrapping event counter.
final class _EventPoolCounter: Sendable {
    private let value = Atomic<UInt>(0)

    func next() -> UInt {
        value.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    /// How many times ``next()`` was called.
    var current: UInt { value.load(ordering: .relaxed) }
}
