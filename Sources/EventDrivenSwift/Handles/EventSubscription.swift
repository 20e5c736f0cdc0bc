// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// What a registration returns: a listener's ``EventListenerHandle``, a channel's or a state's
/// ``ChannelSubscription``, a scheduled event's ``ScheduledEventHandle``, an interceptor's
/// ``EventInterceptorHandle``. Each stops with ``cancel()``.
///
/// ```swift
/// var subscriptions: [any EventSubscription] = []
/// subscriptions.append(bus.listen(Reading.self, owner: self) { owner, reading in owner.show(reading) })
/// subscriptions.append(bus.subscribe(scores) { score in print(score) })
/// subscriptions.append(Reading(celsius: 0).schedule(after: .seconds(5), on: bus))
/// subscriptions.forEach { $0.cancel() }
/// ```
public protocol EventSubscription: Sendable {
    /// Stops it: no delivery whose handler has not started yet runs it (a scheduled event that
    /// has not fired never will). Safe from any thread, including from inside the handler
    /// itself, any number of times; after the first call it does nothing.
    func cancel()

    /// `true` until ``cancel()``, the bus's shutdown, or (for a listener with an owner) the
    /// owner's release; for a scheduled event, until it fires or is cancelled.
    var isActive: Bool { get }
}
