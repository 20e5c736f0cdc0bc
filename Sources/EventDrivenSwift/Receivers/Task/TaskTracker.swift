// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Counts the `.taskThread` deliveries still running, and the library's own background work for
/// the bus, so that `drain()` and `shutdown()` can wait for them.
///
/// A drain waits only for the tasks started before it: each task joins the current generation,
/// and each ``whenIdle(_:)`` closes the generation and opens the next, so a steady stream of new
/// tasks never keeps a drain waiting.
final class _TaskTracker: Sendable {
    private struct State {
        /// The generation new tasks join.
        var generation: UInt64 = 0
        /// Running tasks per generation; only generations with some are present.
        var running: [UInt64: Int] = [:]
        /// Each waits for every task of its generation and the ones before.
        var waiters: [(generation: UInt64, body: @Sendable () -> Void)] = []
    }

    private let state = LockedValue(State())

    /// Runs `body` in a task of its own.
    func start(_ body: @escaping @Sendable () -> Void) {
        let generation = enter()
        Task {
            body()
            self.finish(generation)
        }
    }

    /// Runs `body` off the caller's thread (``_BackgroundWork``), counted like a task: for the
    /// library's own work that a drain and a shutdown must wait for, such as a pool stopped from
    /// one of its own callbacks.
    func startInBackground(_ body: @escaping @Sendable () -> Void) {
        let generation = enter()
        _BackgroundWork.run {
            body()
            self.finish(generation)
        }
    }

    /// Runs `body` on this thread, counted like a task while it runs: for the library's own work
    /// that a drain and a shutdown must wait for, such as a pool stopping from another thread.
    func track<Result>(_ body: () -> Result) -> Result {
        let generation = enter()
        defer { finish(generation) }
        return body()
    }

    /// Counts one more running in the current generation, and returns it.
    private func enter() -> UInt64 {
        state.withLock { state in
            state.running[state.generation, default: 0] += 1
            return state.generation
        }
    }

    private func finish(_ generation: UInt64) {
        let ready: [@Sendable () -> Void] = state.withLock { state in
            let left = state.running[generation, default: 1] - 1
            state.running[generation] = left > 0 ? left : nil
            guard left == 0, !state.waiters.isEmpty else { return [] }
            let oldestRunning = state.running.keys.min() ?? .max
            var ready: [@Sendable () -> Void] = []
            state.waiters.removeAll { waiter in
                guard waiter.generation < oldestRunning else { return false }
                ready.append(waiter.body)
                return true
            }
            return ready
        }
        for waiter in ready { waiter() }
    }

    /// The tasks running now.
    var runningCount: Int { state.withLock { $0.running.values.reduce(0, +) } }

    /// Calls `body` once every task started before this call has finished; at once if none runs.
    func whenIdle(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            let generation = state.generation
            state.generation += 1
            if state.running.isEmpty { return true }
            state.waiters.append((generation, body))
            return false
        }
        if runNow { body() }
    }
}
