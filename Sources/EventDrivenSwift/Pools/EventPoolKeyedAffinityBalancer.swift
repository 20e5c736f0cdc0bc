// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Sends all events with the same key to the same thread, so they are handled in order,
/// as the partitions of a log keep their records in order.
///
/// ```swift
/// let pool = EventPool<OrderProcessor>(
///     capacity: 4,
///     balancer: EventPoolKeyedAffinityBalancer { event in (event as? OrderEvent)?.customerID ?? 0 }
/// )
/// ```
///
/// Events of one key reach their thread in dispatch order and run in the order of one thread
/// (SPEC D3). When the pool's threads change, keys may move to other threads; the pool then
/// holds new events until the events already accepted are handled
/// (``EventPoolBalancing/requiresOrderedHandover``), so a key's events are never reordered.
public struct EventPoolKeyedAffinityBalancer<Key: Hashable & Sendable>: EventPoolBalancing {
    private let key: @Sendable (any Eventable) -> Key

    /// Creates the balancer; `key` returns the key of an event and must be quick and pure.
    public init(key: @escaping @Sendable (any Eventable) -> Key) {
        self.key = key
    }

    /// Returns the thread the event's key hashes to.
    public func selectMember(for event: any Eventable, metadata: EventMetadata, among members: EventPoolMembers) -> Int
    {
        Int(UInt(bitPattern: key(event).hashValue) % UInt(members.count))
    }

    /// `true`: keys are mapped by the number of threads, so a change of threads needs a handover.
    public var requiresOrderedHandover: Bool { true }
}
