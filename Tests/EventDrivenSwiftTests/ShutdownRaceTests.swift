// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization
import Testing

/// A graceful shutdown racing producers: a dispatch that passed the bus's accepting check just
/// before the stop began was still pushing when the stop's drain placed its barriers, and the
/// close that followed discarded it (or, reading the routes after their removal, counted it
/// undelivered). Every such dispatch is delivered now: the stop waits for the dispatches in
/// progress before it drains. Before, 2 to 13 rounds of 20 or 30 ended with a discard; then one
/// round in a CI run, where a dispatch that left looked for waiters only after another had entered
/// (`DispatchesInFlightTests`).
@Suite("R5: a graceful shutdown racing producers", .serialized)
struct ShutdownRaceTests {
    private struct Ping: Eventable {}

    @Test("every dispatch that was not refused is delivered", arguments: 0..<20)
    func racingProducersAreDeliveredOrRefused(round: Int) async {
        let bus = EventBus(label: "race-\(round)")
        bus.setErrorHandler { _ in }  // the refusals after the stop are expected
        bus.listen(Ping.self, executeOn: .listenerThread) { _, _ in }
        let stop = Atomic<Bool>(false)
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<3 {
            Thread {
                started.signal()
                // Until the stop has begun: the race is at its start, and three threads spinning
                // through a whole stop held both cores under ThreadSanitizer for seconds.
                while !stop.load(ordering: .relaxed) && !bus.isShutDown { bus.queue(Ping()) }
                done.signal()
            }.start()
        }
        for _ in 0..<3 { await coreWait(started) }
        await bus.shutdown()
        stop.store(true, ordering: .relaxed)
        for _ in 0..<3 { await coreWait(done) }
        let statistics = bus.statistics
        #expect(statistics.discarded == 0 && statistics.undelivered == 0, "\(statistics)")
        #expect(statistics.delivered > 0, "the producers ran before the stop")
    }
}
