import Dispatch
import Synchronization

/// The bus did not become quiet within the time ``EventBus/waitUntilQuiet(timeout:)`` allowed.
public struct EventBusNotQuietError: Error, Sendable, CustomStringConvertible {
    /// The bus's label.
    public let bus: String
    /// How many deliveries ended (in any outcome) during the last round of waiting: work that was
    /// still going on when the time ran out.
    public let deliveriesInLastRound: Int
    /// What the bus had done when the time ran out.
    public let statistics: EventBusStatistics
    /// Events waiting, unread, in the buffers of the bus's event streams when the time ran out.
    /// ``EventBus/waitUntilQuiet(timeout:)`` does not wait for them (see there), but a stream
    /// that nobody reads is a likely reason for a test to wait in vain.
    public let unreadStreamEvents: Int

    /// A sentence saying what was still going on.
    public var description: String {
        "bus '\(bus)' was not quiet in time: \(deliveriesInLastRound) deliveries ended in the last round, "
            + "\(unreadStreamEvents) events unread in streams (\(statistics))"
    }
}

extension EventBus {
    /// Waits until the bus is quiet: every event dispatched so far, and every event that its
    /// handlers dispatch meanwhile, has been handled (or counted), however many hops that takes.
    ///
    /// ``drain()`` waits for one hop: the events dispatched before it was called. This repeats it
    /// until a round ends in which no delivery ended at all, so nothing is left pending anywhere.
    /// Producers outside the bus's handlers that keep dispatching keep it from being quiet;
    /// scheduled events that are not yet due do not count.
    ///
    /// "Pending" covers every receiver that runs handlers: EventThreads, the listener thread,
    /// serial and main-actor contexts, `.taskThread` tasks, pools, async and actor handlers. It
    /// does not cover events waiting in an event stream's buffer for its consumer
    /// (``events(of:bufferingPolicy:)`` and the other streams): a stream's delivery ends when its
    /// consumer takes the event, and a stream that nobody reads would keep the bus from ever
    /// being quiet. A timeout's error counts them (``EventBusNotQuietError/unreadStreamEvents``).
    /// - Parameter timeout: How long to wait.
    /// - Throws: ``EventBusNotQuietError`` when the bus is still busy after `timeout`, saying
    ///   how busy; the deliveries go on regardless.
    public func waitUntilQuiet(timeout: Duration = .seconds(10)) async throws(EventBusNotQuietError) {
        let outcome = _QuietOutcome()
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: timeout._nonnegativeNanoseconds))
        let finished: Int? = await withCheckedContinuation { continuation in
            outcome.arm(continuation)
            DispatchQueue.global().asyncAfter(deadline: deadline) { outcome.finish(nil) }
            // Rounds chain through drain callbacks rather than a task, so that a busy cooperative
            // pool cannot hold the check up.
            checkQuiet(after: statistics.endedDeliveries, outcome: outcome)
        }
        if finished == nil {
            throw EventBusNotQuietError(
                bus: label, deliveriesInLastRound: outcome.lastRound, statistics: statistics,
                unreadStreamEvents: unreadStreamEvents)
        }
    }
}

extension EventBus {
    /// One round: once everything dispatched so far has been handled, the bus is quiet if no
    /// delivery ended meanwhile; otherwise another round follows.
    fileprivate func checkQuiet(after previous: Int, outcome: _QuietOutcome) {
        whenDrained { [weak self] in
            guard let self, !outcome.isFinished else { return }
            let current = self.statistics.endedDeliveries
            outcome.lastRound = current - previous
            if current == previous {
                outcome.finish(0)
            } else {
                self.checkQuiet(after: current, outcome: outcome)
            }
        }
    }
}

extension EventBus {
    /// Events waiting, unread, in the buffers of this bus's event streams.
    fileprivate var unreadStreamEvents: Int {
        registry.withLock { $0.allSubscriptions }.reduce(0) { total, subscription in
            total + ((subscription.target as? _StreamSink)?.unread.count.load(ordering: .relaxed) ?? 0)
        }
    }
}

extension EventBusStatistics {
    /// Every delivery that has ended, whatever its outcome, and every dispatch that found no one.
    var endedDeliveries: Int {
        delivered + undelivered + expired + superseded + filtered + discarded + ownerReleased + rejected + dropped
            + failed
    }
}

/// Who finished first, the quiet check or the deadline.
private final class _QuietOutcome: Sendable {
    private let state = LockedValue<(continuation: CheckedContinuation<Int?, Never>?, finished: Bool)>((nil, false))
    private let lastRoundCount = Atomic<Int>(0)

    var isFinished: Bool { state.withLock { $0.finished } }

    var lastRound: Int {
        get { lastRoundCount.load(ordering: .relaxed) }
        set { lastRoundCount.store(newValue, ordering: .relaxed) }
    }

    func arm(_ continuation: CheckedContinuation<Int?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Resumes the waiter once; later calls do nothing.
    func finish(_ value: Int?) {
        let continuation = state.withLock { state -> CheckedContinuation<Int?, Never>? in
            guard !state.finished else { return nil }
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: value)
    }
}
