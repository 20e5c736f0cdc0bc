// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// Ported from EventDrivenSwift 5.2's BasicEventPoolTests, in our API: the original made its pool
/// with `let _ = EventPool(…)`, which here stops the pool at once (a pool lives while held).
@Suite("Seed suite: EventDrivenSwift 5.2 EventPool")
struct SeedSuite52PoolTests {
    @Test("P1/R1: a pool nobody holds has stopped: its events are counted undelivered, not lost")
    func unheldPool() async {
        let bus = EventBus(label: "seed52-unheld-pool")
        _ = EventPool<Worker>(capacity: 2, bus: bus)
        await bus.drain()
        SeedNumbered(n: 1).queue(on: bus)
        await bus.drain()
        await bus.shutdown()
        let statistics = bus.statistics
        #expect(statistics.undelivered == 1)
        #expect(statistics.delivered == 0)
    }
}

extension SeedSuite52PoolTests {
    final class Worker: EventThread, @unchecked Sendable {  // no state of its own
        override func registerEventListeners() {
            addEventCallback({ (_: SeedNumbered, _, _) in }, forEventType: SeedNumbered.self)
        }
    }
}
