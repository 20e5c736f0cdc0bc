// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// The bus did not become quiet within the time ``EventBus/waitUntilQuiet(timeout:)`` allowed.
public struct EventBusNotQuietError: Error, Sendable, CustomStringConvertible {
    /// The bus's label.
    public let bus: String
    /// How many deliveries ended (in any outcome) in the round of waiting that the time cut
    /// short, counted when the time ran out: work that was still going on.
    public let deliveriesInLastRound: Int
    /// Deliveries still pending when the time ran out: waiting in the bus's serial receivers
    /// (``EventBus/pendingDeliveries()``, including the batches they were running), held by its
    /// async and actor listeners, or running in `.taskThread` tasks.
    public let pendingDeliveries: Int
    /// What the bus had done when the time ran out.
    public let statistics: EventBusStatistics
    /// Events waiting, unread, in the buffers of the bus's event streams when the time ran out.
    /// ``EventBus/waitUntilQuiet(timeout:)`` does not wait for them (see there), but a stream
    /// that nobody reads is a likely reason for a test to wait in vain.
    public let unreadStreamEvents: Int

    /// A sentence saying what was still going on.
    public var description: String {
        "bus '\(bus)' was not quiet in time: \(pendingDeliveries) deliveries pending, "
            + "\(deliveriesInLastRound) ended in the last round, "
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
    ///
    /// Awaited inside an async or actor listener's handler, it leaves out the listeners that
    /// ``drain()`` leaves out there: that one, and others whose handlers are awaiting a drain too.
    /// - Parameter timeout: How long to wait. When it runs out before the round in progress
    ///   came back, a bus with nothing pending on which no delivery ended during that round is
    ///   quiet all the same: a zero or negative timeout asks whether the bus is quiet now.
    /// - Throws: ``EventBusNotQuietError`` when the bus is still busy after `timeout`, saying
    ///   how busy; the deliveries go on regardless.
    public func waitUntilQuiet(timeout: Duration = .seconds(10)) async throws(EventBusNotQuietError) {
        if let error = await quiet(within: timeout) { throw error }
    }

    /// ``waitUntilQuiet(timeout:)`` that returns its error, and that ends early, with the error,
    /// when the task is cancelled or `cut` is called. Awaited inside an async or actor listener's
    /// handler, its rounds leave listeners out as ``drain()`` does there.
    func quiet(within timeout: Duration, cut: _QuietCut? = nil) async -> EventBusNotQuietError? {
        guard let listener = _HandlerScope.serialListener else {
            return await quiet(within: timeout, cut: cut, leavingOutAwaiting: false)
        }
        return await listener.awaitingDrain { await quiet(within: timeout, cut: cut, leavingOutAwaiting: true) }
    }

    private func quiet(
        within timeout: Duration, cut: _QuietCut?, leavingOutAwaiting: Bool
    ) async -> EventBusNotQuietError? {
        let outcome = _QuietOutcome()
        cut?.arm { outcome.finish(nil) }
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: timeout._nonnegativeNanoseconds))
        let finished: Int? = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                outcome.arm(continuation)
                _BackgroundWork.run(at: deadline) { outcome.finish(nil) }
                // Rounds chain through drain callbacks rather than a task, so that a busy
                // cooperative pool cannot hold the check up.
                let start = self.statistics.endedDeliveries
                outcome.roundStart = start
                checkQuiet(after: start, outcome: outcome, leavingOutAwaiting: leavingOutAwaiting)
            }
        } onCancel: {
            outcome.finish(nil)
        }
        guard finished == nil else { return nil }
        // Counted now, not when the round ends: the round was cut short. A bus with nothing
        // pending, on which no delivery ended since the round began, is quiet though its round
        // had not come back (a zero timeout's deadline can fire before an idle bus's first round).
        let counts = statistics
        let pending = pendingDeliveryCount
        if pending == 0 && counts.endedDeliveries == outcome.roundStart { return nil }
        return EventBusNotQuietError(
            bus: label, deliveriesInLastRound: counts.endedDeliveries - outcome.roundStart,
            pendingDeliveries: pending, statistics: counts, unreadStreamEvents: unreadStreamEvents)
    }
}

extension EventBus {
    /// One round: once everything dispatched so far has been handled, the bus is quiet if no
    /// delivery ended meanwhile; otherwise another round follows.
    fileprivate func checkQuiet(after previous: Int, outcome: _QuietOutcome, leavingOutAwaiting: Bool) {
        whenDrained(leavingOutAwaiting: leavingOutAwaiting) { [weak self] in
            guard let self, !outcome.isFinished else { return }
            let current = self.statistics.endedDeliveries
            if current == previous {
                outcome.finish(0)
            } else {
                outcome.roundStart = current
                self.checkQuiet(after: current, outcome: outcome, leavingOutAwaiting: leavingOutAwaiting)
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

    /// Deliveries pending in the serial receivers, the async and actor listeners and the tasks.
    var pendingDeliveryCount: Int {
        let serial = pendingDeliveries().values.reduce(0, +)
        var seen = Set<ObjectIdentifier>()
        var held = 0
        for subscription in registry.withLock({ $0.allSubscriptions }) {
            if let sink = subscription.target as? _SerialHandlerSink, seen.insert(ObjectIdentifier(sink)).inserted {
                held += sink.held.count.load(ordering: .relaxed)
            }
        }
        return serial + held + tasks.runningCount
    }
}

extension EventBusStatistics {
    /// Every delivery that has ended, whatever its outcome, and every dispatch that found no one.
    /// A refused dispatch leaves nothing pending, so refusals (``rejected``) do not count: a
    /// producer refused while the bus stops does not keep it from being quiet.
    var endedDeliveries: Int {
        delivered + undelivered + expired + superseded + filtered + discarded + ownerReleased + dropped + failed
    }
}

/// Ends a wait for quiet early, from outside it (a shutdown asked for at once meanwhile).
final class _QuietCut: Sendable {
    private let state = LockedValue<(body: (@Sendable () -> Void)?, isCut: Bool)>((nil, false))

    /// Calls `body` when cut, at once if it was cut already.
    func arm(_ body: @escaping @Sendable () -> Void) {
        let cutAlready = state.withLock { state in
            state.body = body
            return state.isCut
        }
        if cutAlready { body() }
    }

    func cut() {
        let body = state.withLock { state in
            state.isCut = true
            return state.body
        }
        body?()
    }
}

/// Who finished first, the quiet check or the deadline.
private final class _QuietOutcome: Sendable {
    private let state = LockedValue<(continuation: CheckedContinuation<Int?, Never>?, finished: Bool)>((nil, false))
    private let roundStartCount = Atomic<Int>(0)

    var isFinished: Bool { state.withLock { $0.finished } }

    /// The count of ended deliveries when the current round began.
    var roundStart: Int {
        get { roundStartCount.load(ordering: .relaxed) }
        set { roundStartCount.store(newValue, ordering: .relaxed) }
    }

    func arm(_ continuation: CheckedContinuation<Int?, Never>) {
        let finishedAlready = state.withLock { state -> Bool in
            if state.finished { return true }
            state.continuation = continuation
            return false
        }
        if finishedAlready { continuation.resume(returning: nil) }
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
