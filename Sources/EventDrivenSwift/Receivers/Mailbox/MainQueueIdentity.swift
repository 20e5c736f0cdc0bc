// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// Whether code runs on the main queue, asked of the queue rather than the thread: on Linux,
/// once `dispatchMain()` has run, main-queue work runs on a dispatch worker thread, and
/// `Thread.isMainThread` is `false` there.
enum _MainQueueIdentity {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// `true` when called from work the main queue runs (the main thread before `dispatchMain()`).
    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}
