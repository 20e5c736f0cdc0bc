// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// Grows the pool while its threads have too much work and shrinks it while they have none.
///
/// - Up: when the events waiting or in progress stay above ``scaleUpThreshold`` per thread for
///   ``window``, the pool grows to enough threads for the threshold (at most ``maximum``).
/// - Down: when no thread has had work for ``idleTimeout``, the pool retires one thread, and
///   one more after each further `idleTimeout`, down to ``minimum``.
///
/// Work is sampled at each evaluation. A retired thread first handles every event it had
/// accepted; nothing is dropped or reordered.
public struct EventPoolDynamicScaler: EventPoolScaling {
    /// The fewest threads the pool runs.
    public let minimum: Int
    /// The most threads the pool runs.
    public let maximum: Int
    /// Events waiting or in progress per thread above which the pool is overloaded.
    public let scaleUpThreshold: Int
    /// How long the pool must stay overloaded before it grows.
    public let window: Duration
    /// How long the pool must stay idle before it shrinks by one thread.
    public let idleTimeout: Duration
    /// How often the pool evaluates on its own; `nil` for only on ``EventPool/evaluateScaling(now:)``.
    public let evaluationInterval: Duration?

    private var overloadedSince: DispatchTime?
    private var idleSince: DispatchTime?

    /// Creates a dynamic scaler.
    ///
    /// - Precondition: `1 <= minimum <= maximum`, `scaleUpThreshold >= 1`, durations not negative.
    public init(
        minimum: Int = 1,
        maximum: Int,
        scaleUpThreshold: Int = 4,
        window: Duration = .milliseconds(500),
        idleTimeout: Duration = .seconds(30),
        evaluationInterval: Duration? = .milliseconds(100)
    ) {
        precondition(minimum >= 1 && minimum <= maximum, "EventPoolDynamicScaler needs 1 <= minimum <= maximum")
        precondition(scaleUpThreshold >= 1, "EventPoolDynamicScaler needs scaleUpThreshold >= 1")
        precondition(window >= .zero && idleTimeout >= .zero, "EventPoolDynamicScaler durations must not be negative")
        self.minimum = minimum
        self.maximum = maximum
        self.scaleUpThreshold = scaleUpThreshold
        self.window = window
        self.idleTimeout = idleTimeout
        self.evaluationInterval = evaluationInterval
    }

    /// `capacity`, kept between ``minimum`` and ``maximum``.
    public func initialThreadCount(capacity: Int) -> Int {
        min(max(capacity, minimum), maximum)
    }

    /// Returns the number of threads for the work in `metrics` at `now`.
    public mutating func threadCount(for metrics: EventPoolMetrics, at now: DispatchTime) -> Int {
        let count = metrics.threadCount
        if count < minimum { return minimum }
        if count > maximum { return maximum }
        let pending = metrics.pendingEvents
        // Divided rather than multiplied: a threshold of `Int.max` ("never grow") must not overflow.
        if pending / count > scaleUpThreshold || (pending / count == scaleUpThreshold && pending % count > 0) {
            idleSince = nil
            let since = overloadedSince ?? now
            overloadedSince = since
            guard count < maximum, Self.elapsed(from: since, to: now) >= window else { return count }
            overloadedSince = now
            let needed = pending / scaleUpThreshold + (pending % scaleUpThreshold > 0 ? 1 : 0)
            return min(maximum, max(count + 1, needed))
        }
        overloadedSince = nil
        guard pending == 0 else {
            idleSince = nil
            return count
        }
        let since = idleSince ?? now
        idleSince = since
        guard count > minimum, Self.elapsed(from: since, to: now) >= idleTimeout else { return count }
        idleSince = now
        return count - 1
    }

    private static func elapsed(from start: DispatchTime, to end: DispatchTime) -> Duration {
        let from = start.uptimeNanoseconds
        let to = end.uptimeNanoseconds
        return to > from ? .nanoseconds(Int64(clamping: to - from)) : .zero
    }
}
