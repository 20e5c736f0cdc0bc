// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A subscription to a channel or a state; ``cancel()`` ends it.
///
/// Handlers that take the subscription as their first argument can end it themselves, which
/// makes a one-shot handler:
///
/// ```swift
/// bus.subscribe(MyEvents.strings) { subscription, string in
///     print(string)
///     subscription.cancel()
/// }
/// ```
public struct ChannelSubscription: EventSubscription, Hashable {
    /// The subscription's reference, which reaches it weakly: the bus keeps a subscription while
    /// it is registered, so a handle kept by the handler's owner never keeps the handler (and
    /// what it captures) alive once the subscription has ended (`SubscriptionHandleLifetimeTests`).
    /// The reference lives as long as a handle or the handler does: it is the handles' identity.
    let reference: _SubscriptionReference

    init(_ reference: _SubscriptionReference) {
        self.reference = reference
    }

    /// Ends the subscription: no delivery that has not started yet runs the handler.
    /// Safe from any thread, including from inside the handler, any number of times.
    public func cancel() {
        reference.subscription?.cancel()
    }

    /// `true` until ``cancel()`` or the bus's shutdown.
    public var isActive: Bool { reference.subscription?.isActive ?? false }

    /// `true` when both are handles of the same subscription.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.reference === rhs.reference }
    /// Hashes the subscription's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(reference)) }
}

/// Lets a handler reach its own subscription; the subscription is set before it is
/// registered, so before any delivery can run.
// @unchecked Sendable: `subscription` is written once, before registration (under the registry lock) publishes it
final class _SubscriptionReference: @unchecked Sendable {
    weak var subscription: _Subscription?

    /// The handle of the subscription whose handler is running.
    var handle: ChannelSubscription? { subscription == nil ? nil : ChannelSubscription(self) }
}
