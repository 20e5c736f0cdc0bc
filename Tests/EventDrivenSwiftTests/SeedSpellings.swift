// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

/// The seeds' deprecated spellings, for the migration tests that check they still work.
///
/// CI fails on any warning in `Tests/`, and a call to a deprecated declaration warns unless it
/// is made from deprecated code. So each spelling is written once, in a deprecated witness of
/// ``SeedSpellingCalls``, and the tests reach it through the protocol, whose requirements are
/// not deprecated.
enum SeedSpellings {
    private static let calls: any SeedSpellingCalls = DeprecatedSeedSpellings()

    /// EventDrivenSwift 5.2's `listenerHandle?.remove()`.
    static func remove(_ handle: (any EventListenerHandling)?) { calls.remove(handle) }

    /// Causality's `subscription.unsubscribe()`.
    static func unsubscribe(_ subscription: ChannelSubscription) { calls.unsubscribe(subscription) }

    /// Causality's `bus.unsubscribe(subscription)`.
    static func unsubscribe(_ subscription: ChannelSubscription, on bus: EventBus) {
        calls.unsubscribe(subscription, on: bus)
    }

    /// The earlier `thread.removeEventCallback(handle)`.
    static func removeEventCallback(_ handle: EventListenerHandle, from thread: EventThread) {
        calls.removeEventCallback(handle, from: thread)
    }

    /// A value of 5.2's type name, `ExecuteEventOn`.
    static func executeEventOn(_ context: DeliveryContext) -> DeliveryContext { calls.executeEventOn(context) }
}

/// What ``SeedSpellings`` forwards to.
protocol SeedSpellingCalls: Sendable {
    func remove(_ handle: (any EventListenerHandling)?)
    func unsubscribe(_ subscription: ChannelSubscription)
    func unsubscribe(_ subscription: ChannelSubscription, on bus: EventBus)
    func removeEventCallback(_ handle: EventListenerHandle, from thread: EventThread)
    func executeEventOn(_ context: DeliveryContext) -> DeliveryContext
}

/// The deprecated spellings themselves, each in deprecated code.
struct DeprecatedSeedSpellings: SeedSpellingCalls {
    @available(*, deprecated)
    func remove(_ handle: (any EventListenerHandling)?) { handle?.remove() }

    @available(*, deprecated)
    func unsubscribe(_ subscription: ChannelSubscription) { subscription.unsubscribe() }

    @available(*, deprecated)
    func unsubscribe(_ subscription: ChannelSubscription, on bus: EventBus) { bus.unsubscribe(subscription) }

    @available(*, deprecated)
    func removeEventCallback(_ handle: EventListenerHandle, from thread: EventThread) {
        thread.removeEventCallback(handle)
    }

    @available(*, deprecated)
    func executeEventOn(_ context: DeliveryContext) -> DeliveryContext {
        let named: ExecuteEventOn = context
        return named
    }
}
