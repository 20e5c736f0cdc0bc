// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Synchronization
import Testing

@testable import EventDrivenSwift

/// A stream's delivery orders its producer's writes before its consumer's reads by itself, so
/// ThreadSanitizer sees the hand-over however the stream's buffer passed the delivery on: on
/// Linux, a consumer that asks for the next event just as the producer resumes it continues
/// without a synchronization the sanitizer sees (CI's run of 2026-11-27 reported a race there).
@Suite("Stream hand-over")
struct StreamHandoffTests {
    private struct Reading: Eventable { let value: Int }

    @Test("A delivery handed to another thread with no ordering of its own is taken whole")
    func deliveryCarriesItsOwnOrdering() async {
        let bus = EventBus(label: #function)
        let unread = _UnreadCount()
        // The delivery's address, published relaxed: nothing but the delivery orders the two.
        let published = Atomic<UInt>(0)
        let taken = CoreRecorder<Int>()
        let done = DispatchSemaphore(value: 0)
        Thread {
            var address = published.load(ordering: .relaxed)
            while address == 0 {
                sched_yield()
                address = published.load(ordering: .relaxed)
            }
            // The test's reference to the delivery: the producer thread gave it up.
            let delivery = Unmanaged<_StreamDelivery>.fromOpaque(UnsafeRawPointer(bitPattern: address)!)
                .takeRetainedValue()
            taken.append((delivery.take().event as? Reading)?.value ?? -1)
            done.signal()
        }.start()
        Thread {
            let metadata = EventMetadata(priority: .normal, method: .queue, dispatchTime: .now(), scheduledTime: nil)
            let delivery = _StreamDelivery(
                _EventEnvelope(event: Reading(value: 42), metadata: metadata), counters: bus.counters,
                unread: unread)
            let address = UInt(bitPattern: Unmanaged.passRetained(delivery).toOpaque())
            published.store(address, ordering: .relaxed)
        }.start()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                done.wait()
                continuation.resume()
            }
        }
        #expect(taken.values == [42])
        #expect(unread.count.load(ordering: .relaxed) == 0, "taken, so no longer unread")
        #expect(bus.statistics.delivered == 1)
    }
}
