// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// A job that counts itself handled.
private struct CountedJob: Eventable {
    let handled: CoreCounter
}

private final class CountingWorker: EventThread, @unchecked Sendable {  // no state of its own beyond EventThread's
    override func registerEventListeners() {
        addEventCallback(CountedJob.self) { job, _ in job.handled.increment() }
    }
}

@Suite("Pools: what stop returns, and what stopping keeps (issue 26, item 8)")
struct PoolStopAccountingTests {
    /// Jobs per producer: a tenth under ThreadSanitizer, which instruments every access.
    static let perProducer = coreUnderThreadSanitizer ? 2_000 : 20_000

    /// Two producers each dispatch `perProducer` jobs while `stop` runs once `threshold` were handled.
    private func race(
        round: Int, perProducer: Int = PoolStopAccountingTests.perProducer, threshold: Int = 500,
        _ stop: @escaping @Sendable (EventPool<CountingWorker>) -> Int
    ) async -> (returned: Int, statistics: EventBusStatistics, handled: Int, sent: Int) {
        let bus = EventBus(label: "pool.stop.\(round)")
        let handled = CoreCounter()
        let pool = EventPool<CountingWorker>(capacity: 2, bus: bus)
        let producers = (0..<2).map { _ in
            // Each producer on a thread of its own: a task looping over thousands of dispatches
            // would hold one of Swift's two pool threads, which every other test's tasks need.
            Task.detached {
                await coreOnPlainThread { for _ in 0..<perProducer { bus.queue(CountedJob(handled: handled)) } }
            }
        }
        _ = await coreEventually { handled.count >= threshold }
        let returned = await coreOnPlainThread { stop(pool) }
        for producer in producers { await producer.value }
        await bus.drain()
        let statistics = bus.statistics
        await bus.shutdown()
        return (returned, statistics, handled.count, 2 * perProducer)
    }

    @Test("stop(draining: false) racing two producers returns every delivery it discarded")
    func stopReturnsWhatItDiscarded() async {
        for round in 0..<10 {
            let result = await race(round: round) { $0.stop(draining: false) }
            #expect(
                result.returned == result.statistics.discarded,
                "round \(round): stop returned \(result.returned), \(result.statistics)")
            #expect(
                result.handled + result.statistics.discarded + result.statistics.undelivered == result.sent,
                "round \(round): handled \(result.handled), \(result.statistics)")
        }
    }

    @Test("releasing the last reference to a pool mid-flood discards nothing")
    func releasedPoolDiscardsNothing() async {
        for round in 0..<10 {
            let bus = EventBus(label: "pool.release.\(round)")
            let handled = CoreCounter()
            var pool: EventPool<CountingWorker>? = EventPool<CountingWorker>(capacity: 2, bus: bus)
            let perProducer = Self.perProducer
            let producers = (0..<2).map { _ in
                Task.detached {
                    await coreOnPlainThread { for _ in 0..<perProducer { bus.queue(CountedJob(handled: handled)) } }
                }
            }
            _ = await coreEventually { handled.count >= 500 }
            #expect(pool?.isStopped == false)
            pool = nil
            for producer in producers { await producer.value }
            // The pool stops on its own, after its pending events: wait until every job is
            // accounted for (handled, or dispatched once the pool had left the bus).
            let settled = await coreEventually {
                handled.count + bus.statistics.undelivered + bus.statistics.discarded == 2 * perProducer
            }
            #expect(settled, "round \(round): handled \(handled.count), \(bus.statistics)")
            #expect(bus.statistics.discarded == 0, "round \(round): \(bus.statistics)")
            await bus.shutdown()
        }
    }

    @Test("stop(draining: true) racing two producers discards nothing")
    func drainingStopDiscardsNothing() async {
        for round in 0..<10 {
            let result = await race(round: round) { $0.stop(draining: true) }
            #expect(result.returned == 0, "round \(round)")
            #expect(result.statistics.discarded == 0, "round \(round): \(result.statistics)")
            #expect(
                result.handled + result.statistics.undelivered == result.sent, "round \(round): \(result.statistics)")
        }
    }
}
