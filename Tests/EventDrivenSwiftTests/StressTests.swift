// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

/// Producers × events across three receivers of different kinds, with mixed priorities and
/// methods: nothing lost, nothing duplicated, per-producer FIFO for queued events of one
/// priority (D4).
///
/// `EDS_STRESS_EVENTS` sets the events per producer (default 1,000,000; 50,000 under
/// ThreadSanitizer). The time it took is printed.
@Suite("D4/R1: stress")
struct StressTests {
    fileprivate struct Load: Eventable {
        let producer: Int32
        let sequence: Int32
    }

    static let producers = 4
    static let eventsPerProducer = Stress.environment(
        "EDS_STRESS_EVENTS", default: Stress.isUnderThreadSanitizer ? 50_000 : 1_000_000)

    @Test("D4/R1: 4 producers × 1,000,000 events to 3 receivers: nothing lost or duplicated, FIFO per producer")
    func fourProducers() async {
        let bus = EventBus(label: #function)
        let events = Self.eventsPerProducer
        let ledgers = (0..<3).map { _ in StressLedger(producers: Self.producers, events: events) }
        let thread = EventThread(bus: bus)
        thread.addEventCallback(Load.self) { (load: Load, metadata: EventMetadata) in ledgers[0].record(load, metadata)
        }
        bus.listen(Load.self, executeOn: .listenerThread) { load, metadata in ledgers[1].record(load, metadata) }
        bus.listen(Load.self, executeOn: .requesterThread) { load, metadata in ledgers[2].record(load, metadata) }

        let started = DispatchTime.now()
        await coreOnThreads(Self.producers) { producer in
            let throttle = DispatchSemaphore(value: 0)
            for sequence in 0..<events {
                let load = Load(producer: Int32(producer), sequence: Int32(sequence))
                let priority = EventPriority.allCases[(sequence &* 7 &+ producer) % 5]
                if sequence % 10 == 9 {
                    bus.stack(load, priority: priority)
                } else {
                    bus.queue(load, priority: priority)
                }
                // Keep the backlog bounded so memory stays small; receivers still race producers.
                if sequence % 100_000 == 99_999 {
                    bus.whenDrained { throttle.signal() }
                    throttle.wait()
                }
            }
        }
        await bus.drain()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        let total = Self.producers * events
        print("stress: \(Self.producers) × \(events) events to 3 receivers in \(seconds) s")

        for ledger in ledgers {
            #expect(ledger.count == total)
            #expect(ledger.duplicates == 0)
            #expect(ledger.fifoViolations == 0)
            #expect(ledger.missing == 0)
        }
        #expect(bus.statistics.delivered == 3 * total)
        #expect(bus.statistics.discarded == 0)
        thread.cancel()
        await bus.shutdown()
    }
}

/// What one receiver saw. Touched only by its receiver's serial context; the test reads it after
/// `drain()`, whose barrier orders those reads after every write.
private final class StressLedger: @unchecked Sendable {  // written by one serial receiver, read after drain's barrier
    private var seen: [[UInt64]]
    private var lastQueued: [[Int32]]
    private(set) var count = 0
    private(set) var duplicates = 0
    private(set) var fifoViolations = 0
    private let events: Int

    init(producers: Int, events: Int) {
        self.events = events
        seen = Array(repeating: Array(repeating: 0, count: (events + 63) / 64), count: producers)
        lastQueued = Array(repeating: Array(repeating: -1, count: 5), count: producers)
    }

    func record(_ load: StressTests.Load, _ metadata: EventMetadata) {
        count += 1
        let producer = Int(load.producer)
        let sequence = Int(load.sequence)
        let bit: UInt64 = 1 << UInt64(sequence & 63)
        if seen[producer][sequence >> 6] & bit != 0 { duplicates += 1 }
        seen[producer][sequence >> 6] |= bit
        if metadata.method == .queue {
            let lane = metadata.priority.rawValue
            if load.sequence <= lastQueued[producer][lane] { fifoViolations += 1 }
            lastQueued[producer][lane] = load.sequence
        }
    }

    /// Sequence numbers never seen, over every producer.
    var missing: Int {
        seen.count * events - seen.reduce(0) { total, bits in total + bits.reduce(0) { $0 + $1.nonzeroBitCount } }
    }
}
