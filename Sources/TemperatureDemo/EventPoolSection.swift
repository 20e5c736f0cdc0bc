// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 8: an EventPool spreads slow (CPU-bound) work over several threads.

struct SlowReading: Eventable { let sensor: Int }

/// Rates a reading slowly: it really computes, on its own thread, as a model would.
final class SlowRater: EventThread, @unchecked Sendable {  // no state of its own beyond EventThread's
    /// What each rating computed, by sensor.
    static let results = LockedValue<[Int: Int]>([:])

    override func registerEventListeners() {
        addEventCallback(SlowReading.self) { reading, _ in
            let result = SlowRater.primes(below: 60_000)
            SlowRater.results.withLock { $0[reading.sensor] = result }
        }
    }

    /// Counts the primes below `limit` by trial division: a few milliseconds of real CPU work.
    static func primes(below limit: Int) -> Int {
        var count = 0
        for candidate in 2..<limit {
            var divisor = 2
            var isPrime = true
            while divisor * divisor <= candidate {
                if candidate % divisor == 0 {
                    isPrime = false
                    break
                }
                divisor += 1
            }
            if isPrime { count += 1 }
        }
        return count
    }
}

func eventPoolSection() async {
    section(
        8, "An EventPool spreads slow work over several threads",
        "A pool of 4 SlowRaters shares the SlowReading events: each goes to exactly one thread, chosen",
        "round robin, and each rating really computes (it counts the primes below 60,000). On a",
        "machine with two cores, two ratings run at once; each thread handled two of the eight.")
    let bus = EventBus.demo("EventPool")
    let pool = EventPool<SlowRater>(capacity: 4, balancer: EventPoolRoundRobinBalancer(), bus: bus)
    for sensor in 1...8 { SlowReading(sensor: sensor).queue(on: bus) }
    await bus.drain()  // waits for the pool's threads too
    let results = SlowRater.results.withLock { $0 }
    print("  results by sensor: \(results.keys.sorted().map { "\($0): \(results[$0]!)" }.joined(separator: ", "))")
    print("  handled per thread: \(pool.metrics.threads.map(\.handled))")
    let discarded = pool.stop(draining: true)
    print("  stop(draining: true) discarded \(discarded)")
    await bus.shutdown()
    printStatistics(of: bus, ["delivered": "the eight readings, each to one thread of the pool"])
}
