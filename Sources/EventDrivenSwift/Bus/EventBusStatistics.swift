// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// What a bus has done with the events dispatched on it, counted since it was created.
///
/// Every dispatched event ends in one of these counts for each subscriber it was meant for,
/// so nothing is lost silently.
public struct EventBusStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Deliveries whose handler ran and returned.
    public var delivered: Int
    /// Events dispatched while nobody listened to their type.
    public var undelivered: Int
    /// Deliveries skipped because the event was older than the listener's `maximumAge`.
    public var expired: Int
    /// Deliveries skipped because a `.latestOnly` listener had a newer event of the type.
    public var superseded: Int
    /// Deliveries declined by a listener's custom filter.
    public var filtered: Int
    /// Deliveries dropped because their receiver was stopped, their listener removed, or the bus shut down.
    public var discarded: Int
    /// Deliveries skipped because the listener's owner had been freed.
    public var ownerReleased: Int
    /// Dispatches refused because the bus was shut down.
    public var rejected: Int
    /// Of ``rejected``, the dispatches refused during a graceful stop
    /// (``EventBus/shutdown(gracefullyWithin:)``) because they came from outside the bus's
    /// handlers: a producer still running while the bus stopped, usually a service stopped
    /// after the bus instead of before it.
    public var rejectedWhileStopping: Int = 0
    /// Deliveries dropped by the overflow policy of a full bounded mailbox or stream buffer.
    public var dropped: Int = 0
    /// Deliveries whose handler threw, or that would have nested deeper than
    /// ``EventBus/maximumSynchronousDepth`` (not counted in ``delivered``: each delivery has one outcome).
    public var failed: Int = 0

    /// Every count, on one line.
    public var description: String {
        "delivered \(delivered), undelivered \(undelivered), expired \(expired), superseded \(superseded), "
            + "filtered \(filtered), discarded \(discarded), owner released \(ownerReleased), rejected \(rejected) "
            + "(\(rejectedWhileStopping) while stopping), dropped \(dropped), failed \(failed)"
    }
}
