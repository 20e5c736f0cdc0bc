// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// The handle `listen`, `addListener` and `addEventCallback` return; ``cancel()`` removes the
/// listener.
public final class EventListenerHandle: EventSubscription, EventListenerHandling, Hashable {
    /// Weak: the bus keeps a listener's subscription while it is registered, so a handle never
    /// keeps the callback (and, through a bound method, its owner: an EventThread keeping the
    /// handles of its own methods) alive once the listener is removed, whoever removed it
    /// (`EventThreadHandleTests`).
    private weak let subscription: _Subscription?
    /// A unique token for this registration.
    public let token = UUID()
    /// Why registration failed, when it did; such a handle is never active.
    public let registrationError: EventDrivenError?

    init(_ subscription: _Subscription) {
        self.subscription = subscription
        self.registrationError = nil
    }

    init(failedWith error: EventDrivenError) {
        self.subscription = nil
        self.registrationError = error
    }

    /// `true` while the callback can still be called: registered, not cancelled, owner alive.
    public var isActive: Bool {
        guard let subscription, subscription.isActive else { return false }
        return !subscription.hasOwner || subscription.owner != nil
    }

    /// Removes the listener: every delivery that has not started yet is skipped. Safe from any
    /// thread, including from inside the callback itself, any number of times.
    public func cancel() {
        subscription?.cancel()
    }

    /// Two handles are equal when they are the same handle.
    public static func == (lhs: EventListenerHandle, rhs: EventListenerHandle) -> Bool { lhs === rhs }
    /// Hashes the handle by identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
