// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutex and a condition variable, the plainest way to hand work to another thread.
// @unchecked Sendable: the pthread mutex guards every use of the condition and the caller's state
final class LockedCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    @inline(__always) func lock() { pthread_mutex_lock(mutex) }
    @inline(__always) func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits for a signal; call with the lock held.
    @inline(__always) func wait() { pthread_cond_wait(condition, mutex) }
    @inline(__always) func signal() { pthread_cond_signal(condition) }
}

/// The floor's queue: producers append under the lock and signal only a waiting consumer; the
/// consumer thread takes everything pending at once and calls the handler for each event.
// @unchecked Sendable: `items`, `waiting` and `closed` are guarded by `lock`; `spare` belongs to the consumer
final class FloorQueue<Item>: @unchecked Sendable {
    private let lock = LockedCondition()
    private var items: [Item] = []
    private var spare: [Item] = []
    private var waiting = false
    private var closed = false
    private let exited = DispatchSemaphore(value: 0)

    init(handler: @escaping @Sendable (Item) -> Void) {
        let thread = Thread { [self] in
            consume(handler)
            exited.signal()
        }
        thread.start()
    }

    func push(_ item: Item) {
        lock.lock()
        items.append(item)
        let wake = waiting
        waiting = false
        lock.unlock()
        if wake { lock.signal() }
    }

    func close() {
        lock.lock()
        closed = true
        lock.unlock()
        lock.signal()
        exited.wait()
    }

    private func consume(_ handler: (Item) -> Void) {
        while true {
            lock.lock()
            while items.isEmpty && !closed {
                waiting = true
                lock.wait()
            }
            if closed {
                lock.unlock()
                return
            }
            swap(&items, &spare)
            lock.unlock()
            for item in spare { handler(item) }
            spare.removeAll(keepingCapacity: true)
        }
    }
}

/// The floor (SPEC PF2): closures called under a lock. Asynchronous scenarios deliver through one
/// `FloorQueue` to one consumer thread, which calls every receiver's closure for each event.
struct FloorContender: Contender {
    var name: String { "floor" }
    var kind: ContenderKind { .floor }
    var isSynchronous: Bool { false }
    var routesByType: Bool { false }

    func makePipeline(receivers: Int, otherTypes: Int, handler: @escaping @Sendable (Int, Tick) -> Void) -> Pipeline {
        let queue = FloorQueue { tick in for index in 0..<receivers { handler(index, tick) } }
        return Pipeline(send: queue.push, tearDown: queue.close)
    }
}

/// The floor with one clock read per event (SPEC E3): what the floor would deliver if, like every
/// dispatch of ours, it stamped each event with `CLOCK_MONOTONIC`, the clock of
/// `DispatchTime.now()`, before queueing it. Not a bound on what a design that keeps E3 can reach:
/// it slows by more than the read's own 20–22 ns (`tools/clockcost.c`), since its consumer empties
/// the queue sooner and waits on the condition variable more often (`perf stat -e context-switches`
/// in Benchmarks/RESULTS.md), and a consumer that lingers instead, as ours do, goes faster.
struct StampedFloorContender: Contender {
    var name: String { "floor + clock read" }
    var kind: ContenderKind { .stampedFloor }
    var isSynchronous: Bool { false }
    var routesByType: Bool { false }
    var skippedScenarios: (names: Set<String>, reason: String)? {
        (["S3", "S4", "S5", "ALLOC", "IDLE"], "the floor with E3's clock read, measured in S1 and S2 only")
    }

    func makePipeline(receivers: Int, otherTypes: Int, handler: @escaping @Sendable (Int, Tick) -> Void) -> Pipeline {
        // The stamp travels with the event, as a dispatch time does.
        let queue = FloorQueue<(Tick, UInt64)> { stamped in
            for index in 0..<receivers { handler(index, stamped.0) }
        }
        return Pipeline(send: { queue.push(($0, monotonicNanoseconds())) }, tearDown: queue.close)
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds, read the way the library stamps a dispatch.
@inline(__always)
private func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// The synchronous floor of S6: a closure called under a lock.
final class FloorDirect: @unchecked Sendable {  // `handlers` is guarded by `lock`
    private let lock = LockedCondition()
    private var handlers: [(Tick) -> Void] = []

    func add(_ handler: @escaping (Tick) -> Void) {
        lock.lock()
        handlers.append(handler)
        lock.unlock()
    }

    @inline(never)
    func send(_ tick: Tick) {
        lock.lock()
        for handler in handlers { handler(tick) }
        lock.unlock()
    }
}
