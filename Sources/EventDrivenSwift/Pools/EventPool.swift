// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// A group of identical ``EventThread``s that share the work: each event of a type they listen
/// for goes to exactly one of them, chosen by a balancer, so up to ``threadCount`` events are
/// handled at once.
///
/// ```swift
/// let pool = EventPool<TemperatureProcessor>(capacity: 5)
/// let keyed = EventPool<TemperatureProcessor>(
///     capacity: 2,
///     balancer: EventPoolKeyedAffinityBalancer { ($0 as? TemperatureEvent)?.sensor ?? "" },
///     scaler: EventPoolDynamicScaler(minimum: 2, maximum: 8)
/// )
/// ```
///
/// The pool keeps itself and its threads running until ``stop(draining:)``; releasing the last
/// reference to it also stops it, after its threads have handled what they accepted, as
/// `stop(draining: true)` does.
public final class EventPool<T: EventThread>: Sendable {
    /// The bus the pool's threads listen on.
    public let bus: EventBus
    let core: _EventPoolCore

    /// Creates the pool and starts its threads.
    ///
    /// - Parameters:
    ///   - capacity: How many threads to start with (the scaler may adjust it).
    ///   - balancer: Chooses the thread for each event; ``EventPoolRoundRobinBalancer`` by default.
    ///   - scaler: Decides how many threads run; ``EventPoolStaticScaler`` (never changes) by default.
    ///   - bus: Where the threads listen; ``EventCentral/shared`` by default.
    /// - Precondition: `capacity >= 1`.
    public init(
        capacity: Int,
        balancer: any EventPoolBalancing = EventPoolRoundRobinBalancer(),
        scaler: any EventPoolScaling = EventPoolStaticScaler(),
        bus: EventBus = EventCentral.shared
    ) {
        precondition(capacity >= 1, "EventPool needs a capacity of at least 1")
        self.bus = bus
        core = _EventPoolCore(bus: bus, balancer: balancer, scaler: scaler) { T(bus: bus) }
        core.start(threads: max(1, scaler.initialThreadCount(capacity: capacity)))
    }

    deinit {
        guard !core.isStopped else { return }
        let core = core
        // Counted by the bus: its drain and shutdown wait until the pool has stopped.
        bus.tasks.startInBackground { _ = core.stop(draining: true) }
    }

    /// The number of threads receiving new events.
    public var threadCount: Int { core.locked.withLock { $0.state.members.count } }

    /// The pool's threads, their work and what they have handled. The handled counts never go
    /// down, also while threads retire or the pool stops.
    public var metrics: EventPoolMetrics { core.metrics }

    /// `true` once ``stop(draining:)`` has been called, or the bus's ``EventBus/shutdown(immediately:)``
    /// has stopped the pool.
    public var isStopped: Bool { core.isStopped }

    /// Asks the scaler now, as if `now` were the current time, and adds or retires threads to
    /// match. The pool also asks on its own every ``EventPoolScaling/evaluationInterval``.
    public func evaluateScaling(now: DispatchTime = .now()) {
        core.evaluateScaling(now: now)
    }

    /// Returns once every event the pool accepted before the call has been handled.
    public func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            core.addBarrier { continuation.resume() }
        }
    }

    /// Stops the pool: it leaves the bus and stops every thread.
    ///
    /// - Parameter draining: `false` (the default) lets each thread finish the callback in
    ///   progress and discards the rest; `true` first handles everything the pool accepted.
    /// - Returns: How many deliveries were discarded: exactly what the stop adds to
    ///   ``EventBusStatistics/discarded`` (0 when draining).
    ///
    /// An event on its way to the pool while it stops (dispatched concurrently, not yet accepted
    /// by the pool) finds the pool gone from the bus: it is counted as
    /// ``EventBusStatistics/undelivered``, as if it had been dispatched a moment later, and is
    /// neither discarded nor in the returned count.
    ///
    /// Threads already retiring after a scale-down still handle what they had accepted, so no
    /// accepted event goes unaccounted for. Blocks until every thread, retiring ones included,
    /// has stopped: on the main thread too, for the callbacks in progress (with `draining`, for
    /// everything pending), so that the count is exact; stop a pool from a task (``EventBus/shutdown()``
    /// does, without blocking) or another thread when its callbacks can be slow. Called from one of the pool's own callbacks, it
    /// returns 0 at once and stops the pool from another thread. Afterwards the pool and its
    /// threads are freed once your own references are gone.
    @discardableResult
    public func stop(draining: Bool = false) -> Int {
        if core.isOnMemberThread {
            let core = core
            // Counted by the bus: its drain and shutdown wait until the pool has stopped.
            bus.tasks.startInBackground { _ = core.stop(draining: draining) }
            return 0
        }
        // Counted by the bus too: a shutdown at the same moment returns once this stop has
        // counted what it discards.
        return bus.tasks.track { core.stop(draining: draining) }
    }
}
