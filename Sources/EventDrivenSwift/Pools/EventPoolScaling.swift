// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// Decides how many threads an ``EventPool`` runs.
///
/// The pool asks ``threadCount(for:at:)`` every ``evaluationInterval`` (from the one global
/// scheduler, off the dispatch path) and whenever ``EventPool/evaluateScaling(now:)`` is called,
/// then adds or retires threads to match. Calls never overlap, so a scaler may keep state in
/// its stored properties. Implement it in your own module for any policy.
public protocol EventPoolScaling: Sendable {
    /// How many threads the pool starts with when created with `capacity`.
    func initialThreadCount(capacity: Int) -> Int

    /// Returns how many threads the pool should run now; values below 1 count as 1.
    ///
    /// Must not call back into the pool other than reading its metrics.
    mutating func threadCount(for metrics: EventPoolMetrics, at now: DispatchTime) -> Int

    /// How often the pool asks on its own; `nil` to ask only on
    /// ``EventPool/evaluateScaling(now:)``.
    var evaluationInterval: Duration? { get }
}

extension EventPoolScaling {
    /// `capacity`: by default a pool starts with the capacity it was created with.
    public func initialThreadCount(capacity: Int) -> Int { capacity }
}
