// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Calls a closure after a fixed number of ticks from any threads.
final class _Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let body: @Sendable () -> Void

    init(_ count: Int, then body: @escaping @Sendable () -> Void) {
        remaining = Atomic(count)
        self.body = body
    }

    func tick() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { body() }
    }
}
