// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// The handle `listen`, `addListener` and `addEventCallback` return; ``cancel()`` removes the
/// listener.
public final class EventListenerHandle: EventSubscription, EventListenerHandling, Hashable {
    /// Dropped when the listener is removed, however it is removed (``cancel()``, an
    /// EventThread's `cancel()`, the bus's shutdown, the owner freed), so that a handle kept by
    /// the listener's owner does not keep the callback (and, through a bound method, the owner
    /// itself) alive (`EventThreadHandleTests`). Not a weak reference: that would move the
    /// subscription's reference count, which every queued event touches, to a side table.
    private let subscription: LockedValue<_Subscription?>
    /// A unique token for this registration.
    public let token = UUID()
    /// Why registration failed, when it did; such a handle is never active.
    public let registrationError: EventDrivenError?

    init(_ subscription: _Subscription) {
        self.subscription = LockedValue(subscription)
        self.registrationError = nil
        subscription.whenEnded { [weak self] in self?.dropSubscription() }
    }

    init(failedWith error: EventDrivenError) {
        self.subscription = LockedValue(nil)
        self.registrationError = error
    }

    /// `true` while the callback can still be called: registered, not cancelled, owner alive.
    public var isActive: Bool {
        guard let subscription = subscription.withLock({ $0 }), subscription.isActive else { return false }
        return !subscription.hasOwner || subscription.owner != nil
    }

    /// Removes the listener: every delivery that has not started yet is skipped. Safe from any
    /// thread, including from inside the callback itself, any number of times.
    public func cancel() {
        dropSubscription()?.cancel()
    }

    /// Forgets the subscription, returned so that it is released outside the lock.
    @discardableResult
    private func dropSubscription() -> _Subscription? {
        subscription.withLock { subscription in
            defer { subscription = nil }
            return subscription
        }
    }

    /// Two handles are equal when they are the same handle.
    public static func == (lhs: EventListenerHandle, rhs: EventListenerHandle) -> Bool { lhs === rhs }
    /// Hashes the handle by identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
