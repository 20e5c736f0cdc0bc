// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization

/// The event of S7: each one costs its handler about a microsecond.
struct Work: Eventable {
    let value: UInt64
}

/// Busy work for about `nanoseconds`, the handler cost of S7.
@inline(never)
func spin(nanoseconds: UInt64) {
    let start = nowNanoseconds()
    while nowNanoseconds() - start < nanoseconds {}
}

/// The receiving thread of S7: about 1 µs of work per event.
///
/// Completion is detected with the bus's drain barrier rather than a counter shared by the
/// threads, whose cache line would bounce between them on every event and penalize the pool.
final class WorkThread: EventThread, @unchecked Sendable {  // adds no state to EventThread
    override func registerEventListeners() {
        addEventCallback(Work.self) { _, _ in spin(nanoseconds: 1_000) }
    }
}

/// S7's contenders: one `EventThread`, or an `EventPool` of one or two threads.
enum PoolSetup: String, CaseIterable {
    case oneThread = "EDS EventThread (one thread)"
    case poolOfOne = "EDS EventPool, 1 thread"
    case poolOfTwo = "EDS EventPool, 2 threads"
}

/// Events per second through `setup`, each costing its handler about 1 µs.
func measurePool(_ setup: PoolSetup, events: Int) -> Double {
    let bus = EventBus(label: "bench.pool")
    var thread: WorkThread?
    var pool: EventPool<WorkThread>?
    switch setup {
    case .oneThread: thread = WorkThread(bus: bus)
    case .poolOfOne: pool = EventPool<WorkThread>(capacity: 1, bus: bus)
    case .poolOfTwo: pool = EventPool<WorkThread>(capacity: 2, bus: bus)
    }
    let drained = DispatchSemaphore(value: 0)
    func sendAndDrain(_ count: Int) {
        for value in 0..<count { bus.queue(Work(value: UInt64(value))) }
        bus.whenDrained { drained.signal() }
        drained.wait()
    }
    sendAndDrain(1_000)
    let start = nowNanoseconds()
    sendAndDrain(events)
    let elapsed = nowNanoseconds() - start
    let handled = bus.statistics.delivered
    precondition(handled == 1_000 + events, "S7: \(handled) of \(1_000 + events) events handled")
    thread?.cancel()
    _ = pool?.stop()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await bus.shutdown()
        done.signal()
    }
    done.wait()
    return Double(events) / (Double(elapsed) / 1e9)
}
