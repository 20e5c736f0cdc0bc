// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization

/// Waits for `semaphore` on a dispatch thread, so that async tests never block the cooperative
/// pool (on a queue of its own, not the global queue: see ``poolWait(_:count:seconds:)``). The long limit only keeps a broken build from hanging the run; it is not a timing check.
func channelWait(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        DispatchQueue(label: "test-wait").async {
            continuation.resume(returning: semaphore.wait(timeout: .now() + 30) == .success)
        }
    }
}

/// A key whose hash is the same for every value, so that only `==` tells keys apart.
struct CollidingKey: Hashable, Sendable {
    let id: Int
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(0) }
}
