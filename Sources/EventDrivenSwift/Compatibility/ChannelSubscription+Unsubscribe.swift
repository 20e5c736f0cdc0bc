// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension ChannelSubscription {
    /// Causality's name for ``cancel()``.
    @available(*, deprecated, renamed: "cancel()")
    public func unsubscribe() {
        cancel()
    }
}

extension EventBus {
    /// Causality's `bus.unsubscribe(subscription)`: ends `subscription`, as
    /// `subscription.cancel()` does.
    @available(*, deprecated, message: "call cancel() on the subscription")
    public func unsubscribe(_ subscription: ChannelSubscription) {
        subscription.cancel()
    }
}
