import Synchronization

/// One event waiting in a stream's buffer for its consumer.
///
/// A stream's delivery is decided when its consumer takes the event (delivered), when the
/// buffer drops it (dropped), or when the stream is abandoned or ends with the event still in
/// its buffer (discarded): the buffer frees the delivery then, and its `deinit` counts it and
/// posts its dead letter. So an event is counted once, whether or not anyone iterates.
final class _StreamDelivery: Sendable {
    let envelope: _EventEnvelope
    private let counters: _BusCounters
    /// Set once the delivery's outcome has been counted by whoever decided it.
    private let isSettled = Atomic<Bool>(false)

    init(_ envelope: _EventEnvelope, counters: _BusCounters) {
        self.envelope = envelope
        self.counters = counters
    }

    deinit {
        if !isSettled.load(ordering: .acquiring) { counters.settle(.removed, envelope) }
    }

    /// The consumer takes the event: it is delivered.
    func take() -> _EventEnvelope {
        settle(.delivered)
        counters.observation.settled(.delivered, envelope, receiver: Self.receiver)
        return envelope
    }

    /// What interceptors are told of the receiver of every stream delivery.
    private static var receiver: EventReceiver { EventReceiver(kind: .stream, name: "stream") }

    /// Counts `outcome` (and posts its dead letter) unless the delivery was settled already.
    func settle(_ outcome: _DeliveryOutcome) {
        guard !isSettled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        counters.settle(outcome, envelope)
    }
}
