import Dispatch
import EventDrivenSwift
import Synchronization

/// The event of S7: each one costs its handler about a microsecond.
struct Work: Eventable {
    let value: UInt64
}

/// Counts S7 deliveries from any number of pool threads and signals at the target.
final class WorkTally: Sendable {
    private let count = Atomic<Int>(0)
    private let target = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    /// Sets the count to reach; call while every receiver is quiet.
    func arm(_ value: Int) {
        count.store(0, ordering: .sequentiallyConsistent)
        target.store(value, ordering: .sequentiallyConsistent)
    }

    func hit() {
        if count.add(1, ordering: .relaxed).newValue == target.load(ordering: .relaxed) { done.signal() }
    }

    func waitForAll() { done.wait() }
}

/// The tally every `WorkThread` reports to: a pool builds its threads with `init(bus:)` alone.
let workTally = WorkTally()

/// Busy work for about `nanoseconds`, the handler cost of S7.
@inline(never)
func spin(nanoseconds: UInt64) {
    let start = nowNanoseconds()
    while nowNanoseconds() - start < nanoseconds {}
}

/// The receiving thread of S7: about 1 µs of work per event.
final class WorkThread: EventThread, @unchecked Sendable {  // adds no state to EventThread
    override func registerEventListeners() {
        addEventCallback(Work.self) { _, _ in
            spin(nanoseconds: 1_000)
            workTally.hit()
        }
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
    workTally.arm(1_000)
    for value in 0..<1_000 { bus.queue(Work(value: UInt64(value))) }
    workTally.waitForAll()
    workTally.arm(events)
    let start = nowNanoseconds()
    for value in 0..<events { bus.queue(Work(value: UInt64(value))) }
    workTally.waitForAll()
    let elapsed = nowNanoseconds() - start
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
