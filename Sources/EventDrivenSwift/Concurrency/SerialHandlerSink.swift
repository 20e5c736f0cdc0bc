import Synchronization

/// The receiver of an async listener: one task that runs the handler for each delivery in turn,
/// in the order the deliveries arrived, never a task per event.
///
/// It is also the subscription's registrar, so removing the listener, its owner going away or the
/// bus shutting down ends the task once it has worked through what it already holds.
final class _SerialHandlerSink: _DrainableSink, _SubscriptionRegistrar {
    enum Item: Sendable {
        case delivery(_EventEnvelope, _Subscription)
        case barrier(@Sendable () -> Void)
    }

    private let continuation: AsyncStream<Item>.Continuation
    /// `true` once the consumer has been told to finish; guards `continuation` so that a barrier
    /// is never yielded into a finished stream, where it would never run.
    private let isFinished = LockedValue(false)
    private weak let bus: EventBus?

    /// Starts the consumer task, which calls `handler` for each delivery that its subscription
    /// still accepts when its turn comes.
    init(
        bus: EventBus,
        handler: @escaping @Sendable (any Eventable, EventMetadata) async throws -> Void
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        self.continuation = continuation
        self.bus = bus
        let counters = bus.counters
        Task { [weak bus] in
            for await item in stream {
                switch item {
                case .barrier(let body):
                    body()
                case .delivery(let envelope, let subscription):
                    // The subscription's own handler is empty: `deliver` only applies its checks
                    // (removed, owner freed, interest) and tells whether the handler may run.
                    let outcome = subscription.deliver(envelope)
                    var tally = _DeliveryTally()
                    tally.record(outcome)
                    counters.record(tally)
                    counters.noteUndelivered(outcome, envelope)
                    guard outcome == .delivered else { continue }
                    do {
                        try await handler(envelope.event, envelope.metadata)
                    } catch {
                        counters.failed.add(1, ordering: .relaxed)
                        bus?.reportHandlerFailure(error, eventType: subscription.eventTypeName)
                    }
                }
            }
        }
    }

    deinit {
        continuation.finish()
    }

    func accept(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        let result = isFinished.withLock { finished in
            finished ? .terminated : continuation.yield(.delivery(envelope, subscription))
        }
        if case .terminated = result {
            bus?.counters.discarded.add(1, ordering: .relaxed)
            bus?.counters.deadLetters.post(envelope, reason: .discarded)
        }
    }

    func addBarrier(_ body: @escaping @Sendable () -> Void) {
        let queued = isFinished.withLock { finished in
            if finished { return false }
            if case .enqueued = continuation.yield(.barrier(body)) { return true }
            return false
        }
        if !queued { body() }
    }

    func register(_ subscription: _Subscription) {
        bus?.register(subscription)
    }

    func unregister(_ subscription: _Subscription) {
        bus?.unregister(subscription)
        isFinished.withLock { finished in
            finished = true
            continuation.finish()
        }
    }
}
