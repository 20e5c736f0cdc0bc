// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// Keeps the pool at the number of threads it was created with. The default scaler.
public struct EventPoolStaticScaler: EventPoolScaling {
    /// Creates the scaler.
    public init() {}

    /// Returns the current number of threads.
    public func threadCount(for metrics: EventPoolMetrics, at now: DispatchTime) -> Int {
        metrics.threadCount
    }

    /// `nil`: a static pool never needs to be asked.
    public var evaluationInterval: Duration? { nil }
}
