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
    /// The subscription's reference, which lets go of it when it ends, so a handle kept by the
    /// handler's owner never keeps the handler (and what it captures) alive once the
    /// subscription has ended (`SubscriptionHandleLifetimeTests`). The reference lives as long
    /// as a handle or the handler does: it is the handles' identity.
    let reference: _SubscriptionReference

    init(_ reference: _SubscriptionReference) {
        self.reference = reference
    }

    /// Ends the subscription: no delivery that has not started yet runs the handler.
    /// Safe from any thread, including from inside the handler, any number of times.
    public func cancel() {
        reference.subscription?.cancel()
    }

    /// `true` until ``cancel()``, the bus's shutdown, or the bus being freed.
    public var isActive: Bool { reference.subscription?.isActive ?? false }

    /// `true` when both are handles of the same subscription.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.reference === rhs.reference }
    /// Hashes the subscription's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(reference)) }
}

/// Lets a handler reach its own subscription, and a handle end it.
///
/// It holds the subscription strongly until the subscription ends (``_Subscription/whenEnded(_:)``),
/// then lets go of it. A weak reference would give every channel and state subscription a side
/// table, which sends each retain and release of it (a queued delivery takes one of each) down
/// the runtime's slow path. Until the end, the subscription, its handler and this reference hold
/// each other; a subscription ends when it is cancelled and when its bus shuts down, and a bus
/// freed without a shutdown lets its subscriptions' references go
/// (``_Subscription/releaseHandles()``), so that a subscription outlives its bus only until its
/// deliveries already queued have run.
final class _SubscriptionReference: Sendable {
    private let held = LockedValue<_Subscription?>(nil)

    /// Holds `subscription` until it ends; called before it is registered, so before any
    /// delivery can run.
    func attach(_ subscription: _Subscription) {
        held.withLock { $0 = subscription }
        subscription.whenEnded { [self] in
            // Released after the lock: the last release may free the user's handler.
            let ended = held.withLock { $0.take() }
            _ = ended
        }
    }

    /// The subscription, until it ends.
    var subscription: _Subscription? { held.withLock { $0 } }
}
