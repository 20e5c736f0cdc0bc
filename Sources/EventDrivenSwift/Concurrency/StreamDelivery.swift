// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

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
    /// The count of its stream's unread events, which this delivery is in until it is settled.
    private let unread: _UnreadCount
    /// Set once the delivery's outcome has been counted by whoever decided it.
    private let isSettled = Atomic<Bool>(false)

    init(_ envelope: _EventEnvelope, counters: _BusCounters, unread: _UnreadCount) {
        self.envelope = envelope
        self.counters = counters
        self.unread = unread
        unread.count.add(1, ordering: .relaxed)
        // Publishes the stores above to whoever settles the delivery (`settle` and `deinit`
        // acquire this flag), however it reached them: a consumer that resumes just as it
        // suspends synchronizes with the producer in ways ThreadSanitizer does not see.
        isSettled.store(false, ordering: .releasing)
    }

    deinit {
        if !isSettled.load(ordering: .acquiring) {
            counters.settle(.removed, envelope)
            unread.count.subtract(1, ordering: .relaxed)
        }
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
        unread.count.subtract(1, ordering: .relaxed)
    }
}

/// How many events wait in one stream's buffer, unread: for ``EventBusNotQuietError``.
final class _UnreadCount: Sendable {
    let count = Atomic<Int>(0)
}
