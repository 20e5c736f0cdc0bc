// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// What an ``EventPool`` is doing: its threads, their work, and what they have handled.
public struct EventPoolMetrics: Sendable, Equatable {
    /// The threads that receive new events, in the pool's order.
    public let threads: [EventPoolThreadMetrics]
    /// Threads that left the pool and are still handling the events they had accepted.
    public let retiringThreadCount: Int
    /// Events held back while the pool's threads change (see
    /// ``EventPoolBalancing/requiresOrderedHandover``).
    public let heldEvents: Int
    /// Deliveries handled by threads that have left the pool.
    public let handledByRetiredThreads: Int

    /// Creates metrics, for instance to test a custom ``EventPoolScaling``.
    public init(
        threads: [EventPoolThreadMetrics], retiringThreadCount: Int = 0, heldEvents: Int = 0,
        handledByRetiredThreads: Int = 0
    ) {
        self.threads = threads
        self.retiringThreadCount = retiringThreadCount
        self.heldEvents = heldEvents
        self.handledByRetiredThreads = handledByRetiredThreads
    }

    /// The number of threads that receive new events.
    public var threadCount: Int { threads.count }

    /// Events waiting or in progress on all threads, plus those held back.
    public var pendingEvents: Int { threads.reduce(heldEvents) { $0 + $1.pending } }

    /// Deliveries handled by every thread the pool has had.
    public var handledEvents: Int { threads.reduce(handledByRetiredThreads) { $0 + $1.handled } }
}

/// The work of one thread of an ``EventPool``.
public struct EventPoolThreadMetrics: Sendable, Equatable, Identifiable {
    /// The thread's ``EventPoolMember/id``.
    public let id: Int
    /// Events waiting for the thread plus those of the batch it is running.
    public let pending: Int
    /// Deliveries the thread has finished (one per callback an event reached), counted when
    /// their batch ends.
    public let handled: Int

    /// Creates the metrics of one thread.
    public init(id: Int, pending: Int, handled: Int) {
        self.id = id
        self.pending = pending
        self.handled = handled
    }
}
