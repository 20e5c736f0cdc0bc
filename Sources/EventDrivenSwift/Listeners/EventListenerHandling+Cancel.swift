// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventListenerHandling {
    /// Stops further deliveries: the one cancellation verb every handle of the library has
    /// (listeners, callbacks, channel and state subscriptions, scheduled events).
    /// ``remove()`` is EventDrivenSwift 5.2's name for it.
    public func cancel() {
        remove()
    }
}

extension ChannelSubscription {
    /// Ends the subscription: the one cancellation verb every handle of the library has.
    /// ``unsubscribe()`` is Causality's name for it.
    public func cancel() {
        unsubscribe()
    }
}
