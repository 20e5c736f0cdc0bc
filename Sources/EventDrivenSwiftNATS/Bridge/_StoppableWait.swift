// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import NIOConcurrencyHelpers

/// A wait that ``stop()`` cuts short: the importer's back-off before it opens a consumer again.
/// Once stopped, every wait returns at once.
final class _StoppableWait: Sendable {
    private struct State: Sendable {
        var isStopped = false
        var sleeper: Task<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())

    /// Waits `duration`, or until ``stop()`` is called, whichever comes first.
    func wait(_ duration: Duration) async {
        let sleeper = Task<Void, Never> { _ = try? await Task.sleep(for: duration.sleepable) }
        let isStopped = state.withLockedValue { state -> Bool in
            if state.isStopped { return true }
            state.sleeper = sleeper
            return false
        }
        if isStopped { sleeper.cancel() }
        await sleeper.value
        state.withLockedValue { state in
            if state.sleeper == sleeper { state.sleeper = nil }
        }
    }

    /// Ends the wait under way, and makes every later one return at once.
    func stop() {
        let sleeper = state.withLockedValue { state -> Task<Void, Never>? in
            state.isStopped = true
            defer { state.sleeper = nil }
            return state.sleeper
        }
        sleeper?.cancel()
    }
}
