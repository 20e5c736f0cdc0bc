// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// The library's own work off the caller's thread: stopping a pool, a pool's periodic scaling
/// check, retiring a pool thread, the timeout of ``EventBus/waitUntilQuiet(timeout:)``, the
/// main-queue watch.
///
/// Not on the global concurrent queue: it starts about one thread per processor, and while
/// those are busy or blocked (by the application, or by work of ours that waits for
/// callbacks) what is queued behind them waits, for seconds. Each call gets a serial queue of its
/// own, which libdispatch serves from its overcommitting pool: a thread at once when none is
/// free. Measured with 64 blocked items on the global queue
/// (`PoolScalingTests/periodicScalerWithSaturatedGlobalQueue`,
/// `QuietTimeoutTests/timeoutWithSaturatedGlobalQueue`): before, a pool's 1 ms check ran 0 times
/// in 5 s and a 50 ms quiet timeout had not fired after 5 s.
enum _BackgroundWork {
    /// Runs `work` on a thread of libdispatch's overcommitting pool.
    static func run(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "EventDrivenSwift.background").async(execute: work)
    }

    /// Runs `work` on a thread of libdispatch's overcommitting pool at `deadline`.
    static func run(at deadline: DispatchTime, _ work: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "EventDrivenSwift.background").asyncAfter(deadline: deadline, execute: work)
    }
}
