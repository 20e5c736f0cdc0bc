import Foundation

/// A registered listener or callback, which can be removed at any time.
public protocol EventListenerHandling: AnyObject, Sendable {
    /// Stops further deliveries: every delivery that has not started yet is skipped.
    /// Safe from any thread, including from inside the callback itself, any number of times.
    func remove()
}

/// The handle `addListener` and `addEventCallback` return.
public final class EventListenerHandle: EventListenerHandling, Hashable {
    private let subscription: _Subscription?
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

    /// `true` while the callback can still be called: registered, not removed, owner alive.
    public var isActive: Bool {
        guard let subscription, subscription.isActive else { return false }
        return !subscription.hasOwner || subscription.owner != nil
    }

    public func remove() {
        subscription?.cancel()
    }

    public static func == (lhs: EventListenerHandle, rhs: EventListenerHandle) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
