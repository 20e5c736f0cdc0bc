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
        // Boxed and stamped here, in the caller's module, which knows the message's type.
        dispatch(
            _EventEnvelope(dispatching: _ChannelMessage(message: message), method: .queue, priority: priority),
            toChannel: channel.identity)
    }

    /// Signals `channel`, a channel whose messages carry no data.
    public func publish(_ channel: EventChannel<NoMessage>, priority: EventPriority = .normal) {
        publish(channel, NoMessage(), priority: priority)
    }

    // MARK: Subscribing

    /// Calls `handler` with every message published on `channel` from now on, in `context`.
    ///
    /// The subscription lasts until ``ChannelSubscription/cancel()``, the bus's shutdown, or the
    /// bus being freed.
    @discardableResult
    @_disfavoredOverload  // without `on:`, a call means the form that keeps the closure's isolation
    @inlinable
    public func subscribe<Message>(
        _ channel: EventChannel<Message>, on context: DeliveryContext = .requesterThread,
        isolation: (any Actor)? = #isolation,
        _ handler: @escaping @Sendable (Message) -> Void
    ) -> ChannelSubscription {
        _subscribe(channel.identity, _ChannelMessage<Message>.self, on: context, isolation: isolation) { event, _ in
            handler(_project(event, as: _ChannelMessage<Message>.self).message)
        }
    }

    /// Calls `handler` with its own subscription and every message published on `channel` from
    /// now on, in `context`; the handler can end the subscription, for example after the first
    /// message.
    @discardableResult
    @inlinable
    public func subscribe<Message>(
        _ channel: EventChannel<Message>, on context: DeliveryContext = .requesterThread,
        isolation: (any Actor)? = #isolation,
        _ handler: @escaping @Sendable (ChannelSubscription, Message) -> Void
    ) -> ChannelSubscription {
        _subscribe(channel.identity, _ChannelMessage<Message>.self, on: context, isolation: isolation) {
            handle, event in
            handler(handle, _project(event, as: _ChannelMessage<Message>.self).message)
        }
    }

    /// ``subscribe(_:on:isolation:_:)`` with the handler built, in the caller's module, for the
    /// channel's message type (``_project(_:as:)``), as a listener's is; the handler is the
    /// subscription's, with no handle made for each message.
    @usableFromInline
    func _subscribe(
        _ channel: _ChannelKey, _ messageType: any Eventable.Type, on context: DeliveryContext,
        isolation: (any Actor)?, _ handler: @escaping @Sendable (any Eventable, EventMetadata) -> Void
    ) -> ChannelSubscription {
        subscribe(channel, messageType, on: context, isolation: isolation) { _ in _ErasedHandler(handler: handler) }
    }

    /// ``subscribe(_:on:isolation:_:)`` for a handler that takes its own subscription: one
    /// ``ChannelSubscription`` is made for each message.
    @usableFromInline
    func _subscribe(
        _ channel: _ChannelKey, _ messageType: any Eventable.Type, on context: DeliveryContext,
        isolation: (any Actor)?, _ handler: @escaping @Sendable (ChannelSubscription, any Eventable) -> Void
    ) -> ChannelSubscription {
        subscribe(channel, messageType, on: context, isolation: isolation) { reference in
            // Running, so not freed: the handle needs no look at the subscription.
            _ErasedHandler(handler: { event, _ in handler(ChannelSubscription(reference), event) })
        }
    }

    /// Registers a subscription of `channel` with the handler `handlers` makes for its reference.
    private func subscribe(
        _ channel: _ChannelKey, _ messageType: any Eventable.Type, on context: DeliveryContext,
        isolation: (any Actor)?, handlers: (_SubscriptionReference) -> _ErasedHandler
    ) -> ChannelSubscription {
        let reference = _SubscriptionReference()
        let subscription = _Subscription(
            messageType, owner: nil, target: target(for: context, isolation: isolation), interest: .all,
            channel: channel, registrar: self, handlers: handlers(reference))
        reference.attach(subscription)
        register(subscription)
        return ChannelSubscription(reference)
    }

    /// How many subscriptions `channel` has on this bus.
    public func subscriberCount<Message>(for channel: EventChannel<Message>) -> Int {
        registry.withLock { $0.channels[channel.identity]?.subscriptions.count ?? 0 }
    }
}
