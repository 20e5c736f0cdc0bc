import Synchronization

/// Feeds the deliveries of one subscription into an `AsyncStream` continuation.
///
/// It is also the subscription's registrar, so that whatever ends the subscription (the
/// consumer's task being cancelled, the bus shutting down, the bus being freed) also ends the
/// stream.
final class _StreamSink: _DeliverySink, _SubscriptionRegistrar {
    private let continuation: AsyncStream<_EventEnvelope>.Continuation
    private let counters: _BusCounters
    private weak let bus: EventBus?

    init(bus: EventBus, continuation: AsyncStream<_EventEnvelope>.Continuation) {
        self.bus = bus
        self.counters = bus.counters
        self.continuation = continuation
    }

    deinit {
        // The bus was freed without shutting down: end the stream rather than leave it waiting.
        continuation.finish()
    }

    /// Called on the dispatching thread; the continuation serializes concurrent producers.
    func accept(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        guard subscription.isActive else {
            counters.settle(.removed, envelope)
            return
        }
        yield(envelope)
    }

    /// Hands `envelope` to the stream, counting it as delivered (unless the caller already
    /// did), dropped by the buffer, or discarded because the stream has ended.
    func yield(_ envelope: _EventEnvelope, countingDelivery: Bool = true) {
        switch continuation.yield(envelope) {
        case .enqueued:
            if countingDelivery { counters.delivered.add(1, ordering: .relaxed) }
        case .dropped(let dropped):
            // With `.bufferingNewest` the dropped event is an older one, not `envelope`.
            counters.dropped.add(1, ordering: .relaxed)
            counters.deadLetters.post(dropped, reason: .dropped)
        case .terminated:
            counters.discarded.add(1, ordering: .relaxed)
            counters.deadLetters.post(envelope, reason: .discarded)
        @unknown default:
            counters.discarded.add(1, ordering: .relaxed)
        }
    }

    func register(_ subscription: _Subscription) {
        bus?.register(subscription)
    }

    func unregister(_ subscription: _Subscription) {
        bus?.unregister(subscription)
        continuation.finish()
    }
}

extension EventBus {
    /// Builds a stream fed by a `.sink` subscription for `type`, optionally on one channel.
    func makeStream<E: Eventable, Element: Sendable>(
        of type: E.Type,
        channel: _ChannelKey? = nil,
        bufferingPolicy: EventBufferingPolicy,
        transform: @escaping @Sendable (_EventEnvelope) -> Element
    ) -> EventStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: _EventEnvelope.self, bufferingPolicy: bufferingPolicy.streamPolicy)
        let sink = _StreamSink(bus: self, continuation: continuation)
        let subscription = _Subscription(
            type, owner: nil, target: .sink(sink), interest: .all, channel: channel, registrar: sink,
            handlers: .empty)
        continuation.onTermination = { [weak subscription] _ in subscription?.cancel() }
        sink.register(subscription)
        // A shutdown that took its snapshot of subscriptions before this registration would
        // miss it; the flag is set before that snapshot, so checking it here closes the gap.
        if isShutDown { subscription.cancel() }
        return EventStream(base: stream, transform: transform)
    }
}
