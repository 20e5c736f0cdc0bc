// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Testing

@testable import EventDrivenSwift

/// Issue 26 item 1: an owner whose `deinit` cancels its own listener, freed while another thread
/// registers a listener of the same type. The registry used to load the weak owners of the
/// route under its lock when it pruned freed ones; that load could make the registry the
/// owner's last holder, so its `deinit` (user code) ran under the lock and `cancel()` took the
/// lock again: "a lock of the bus was taken twice by one thread", and the process stopped.
@Suite("Issue 26.1: an owner's deinit may cancel its listener while others register")
struct OwnerDeinitTests {
    struct Tick: Eventable {}

    /// The common pattern: the owner keeps its handle and cancels it when it goes.
    final class Owner: Sendable {
        let handle = LockedValue<EventListenerHandle?>(nil)

        deinit {
            handle.withLock { $0 }?.cancel()
        }
    }

    @Test("two threads registering owners and freeing them, 2 × 5,000 times: no crash, nothing left registered")
    func ownersCancelingInDeinit() async {
        let bus = EventBus(label: #function)
        let rounds = 5_000
        let finished = DispatchGroup()
        for _ in 0..<2 {
            finished.enter()
            Thread {
                // 32 live owners per thread: every registration of the other thread walks past them
                // while this one frees them, one per round.
                var owners: [Owner?] = Array(repeating: nil, count: 32)
                for round in 0..<rounds {
                    let owner = Owner()
                    let handle = bus.listen(Tick.self, owner: owner, executeOn: .synchronous) { _, _ in }
                    owner.handle.withLock { $0 = handle }
                    // Frees the owner of 32 rounds ago: its deinit cancels its listener.
                    owners[round % owners.count] = owner
                }
                owners.removeAll()
                finished.leave()
            }.start()
        }
        await withCheckedContinuation { continuation in
            finished.notify(queue: .global()) { continuation.resume() }
        }
        #expect(bus.subscriberCount(for: Tick.self) == 0, "every owner's deinit removed its listener")
        Tick().dispatchNow(on: bus)
        #expect(bus.statistics.delivered == 0)
    }
}
