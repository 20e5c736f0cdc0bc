// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Feeds the deliveries of one subscription into an `AsyncStream` continuation.
///
/// It is also the subscription's registrar, so that whatever ends the subscription (the
/// consumer's task being cancelled, the bus shutting down, the bus being freed) also ends the
/// stream.
final class _StreamSink: _DeliveryTarget, _SubscriptionRegistrar {
    private let continuation: AsyncStream<_StreamDelivery>.Continuation
    private let counters: _BusCounters
    private weak let bus: EventBus?
    /// Events yielded to the stream that its consumer has not taken yet (nor the buffer dropped).
    let unread = _UnreadCount()

    init(bus: EventBus, continuation: AsyncStream<_StreamDelivery>.Continuation) {
        self.bus = bus
        self.counters = bus.counters
        self.continuation = continuation
    }

    deinit {
        // The bus was freed without shutting down: end the stream rather than leave it waiting.
        continuation.finish()
    }

    /// Called on the dispatching thread; the continuation serializes concurrent producers.
    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        guard subscription.isActive else {
            counters.settle(.removed, envelope)
            return
        }
        yield(envelope)
    }

    /// Hands `envelope` to the stream. Its outcome is decided later: delivered when the consumer
    /// takes it, discarded if the stream is abandoned or ends first (see ``_StreamDelivery``);
    /// at once when the buffer drops an event or the stream has ended.
    func yield(_ envelope: _EventEnvelope) {
        switch continuation.yield(_StreamDelivery(envelope, counters: counters, unread: unread)) {
        case .enqueued:
            break
        case .dropped(let dropped):
            // With `.bufferingNewest` the dropped event is an older one, not `envelope`.
            dropped.settle(.dropped)
        case .terminated:
            // The delivery was freed with the refused element, and counted as discarded there.
            break
        @unknown default:
            break
        }
    }

    var observation: _Observation? { counters.observation }
    var receiverKind: EventReceiverKind { .stream }

    func register(_ subscription: _Subscription) {
        bus?.register(subscription)
    }

    func unregister(_ subscription: _Subscription) {
        bus?.unregister(subscription)
        continuation.finish()
    }
}

extension EventBus {
    /// Builds a stream fed by a subscription whose target is the stream's sink, for `type`,
    /// optionally on one channel.
    func makeStream<E: Eventable, Element: Sendable>(
        of type: E.Type,
        channel: _ChannelKey? = nil,
        bufferingPolicy: EventBufferingPolicy,
        transform: @escaping @Sendable (_EventEnvelope) -> Element
    ) -> EventStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: _StreamDelivery.self, bufferingPolicy: bufferingPolicy.streamPolicy)
        if type == AllEvents.self {
            report(.catchAllSubscription(api: "events(of:)"))
            continuation.finish()
            return EventStream(base: stream, transform: transform)
        }
        let sink = _StreamSink(bus: self, continuation: continuation)
        let subscription = _Subscription(
            type, owner: nil, target: sink, interest: .all, channel: channel, registrar: sink,
            handlers: .empty)
        continuation.onTermination = { [weak subscription] _ in subscription?.cancel() }
        // After shutdown the registration ends at once, and the stream with it (`register`).
        sink.register(subscription)
        return EventStream(base: stream, transform: transform)
    }
}
