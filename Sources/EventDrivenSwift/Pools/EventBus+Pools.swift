// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// How a bus's shutdown reaches the pools whose threads listen on it.
extension EventBus {
    /// The pools with a subscription on this bus, each once.
    var subscribedPools: [_EventPoolCore] {
        var seen = Set<ObjectIdentifier>()
        var pools: [_EventPoolCore] = []
        for subscription in registry.withLock({ $0.allSubscriptions }) {
            if let pool = subscription.target as? _EventPoolCore,
                seen.insert(ObjectIdentifier(pool)).inserted
            {
                pools.append(pool)
            }
        }
        return pools
    }

    /// Stops `pools` as ``EventPool/stop(draining:)`` does, off the caller's thread: stopping
    /// blocks until each pool's threads have finished their callbacks in progress.
    func stop(_ pools: [_EventPoolCore], draining: Bool) async {
        guard !pools.isEmpty else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _BackgroundWork.run {
                for pool in pools { _ = pool.stop(draining: draining) }
                continuation.resume()
            }
        }
    }
}
