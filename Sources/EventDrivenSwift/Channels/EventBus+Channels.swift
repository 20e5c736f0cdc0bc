// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

extension EventBus {
    // MARK: Publishing

    /// Publishes `message` on `channel` and returns once the synchronous subscribers have run;
    /// every other subscriber gets it in its own context, queued with `priority`.
    ///
    /// A message that no one subscribed to is counted as ``EventBusStatistics/undelivered``.
    @inlinable
    public func publish<Message>(
        _ channel: EventChannel<Message>, _ message: Message, priority: EventPriority = .normal
    ) {
        // Boxed here, in the caller's module, which knows the message's type.
        _publish(_ChannelMessage(message: message), toChannel: channel.identity, priority: priority)
    }

    /// ``publish(_:_:priority:)`` with the message boxed.
    @usableFromInline
    func _publish(_ message: any Eventable, toChannel channel: _ChannelKey, priority: EventPriority) {
        dispatch(
            message, toChannel: channel,
            metadata: EventMetadata(priority: priority, method: .queue, dispatchTime: ._eventNow, scheduledTime: nil))
    }

    /// Signals `channel`, a channel whose messages carry no data.
    public func publish(_ channel: EventChannel<NoMessage>, priority: EventPriority = .normal) {
        publish(channel, NoMessage(), priority: priority)
    }

    // MARK: Subscribing

    /// Calls `handler` with every message published on `channel` from now on, in `context`.
    ///
    /// The subscription lasts until ``ChannelSubscription/cancel()`` or the bus's shutdown.
    @discardableResult
    @_disfavoredOverload  // without `on:`, a call means the form that keeps the closure's isolation
    public func subscribe<Message>(
        _ channel: EventChannel<Message>, on context: DeliveryContext = .requesterThread,
        isolation: (any Actor)? = #isolation,
        _ handler: @escaping @Sendable (Message) -> Void
    ) -> ChannelSubscription {
        subscribe(channel, on: context, isolation: isolation) { (_: ChannelSubscription, message: Message) in
            handler(message)
        }
    }

    /// Calls `handler` with its own subscription and every message published on `channel` from
    /// now on, in `context`; the handler can end the subscription, for example after the first
    /// message.
    @discardableResult
    public func subscribe<Message>(
        _ channel: EventChannel<Message>, on context: DeliveryContext = .requesterThread,
        isolation: (any Actor)? = #isolation,
        _ handler: @escaping @Sendable (ChannelSubscription, Message) -> Void
    ) -> ChannelSubscription {
        let reference = _SubscriptionReference()
        let subscription = _Subscription(
            _ChannelMessage<Message>.self, owner: nil, target: target(for: context, isolation: isolation),
            interest: .all,
            channel: channel.identity, registrar: self
        ) { envelope, _ in
            // Running, so not freed: the handle needs no look at the subscription.
            handler(ChannelSubscription(reference), envelope.message)
        }
        reference.attach(subscription)
        register(subscription)
        return ChannelSubscription(reference)
    }

    /// How many subscriptions `channel` has on this bus.
    public func subscriberCount<Message>(for channel: EventChannel<Message>) -> Int {
        registry.withLock { $0.channels[channel.identity]?.subscriptions.count ?? 0 }
    }
}
