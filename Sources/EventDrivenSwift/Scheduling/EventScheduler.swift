import Dispatch
import Foundation
import HeapModule
import Synchronization

/// The one scheduler of the process: a heap of due times served by a single thread that
/// sleeps until the earliest one. It needs no run loop and no main queue, so it works in
/// command-line programs and servers.
final class _EventScheduler: Sendable {
    static let shared = _EventScheduler()

    private struct Item: Comparable {
        let due: UInt64
        let order: UInt64
        let handle: ScheduledEventHandle
        let fire: @Sendable () -> Void

        static func < (lhs: Item, rhs: Item) -> Bool { (lhs.due, lhs.order) < (rhs.due, rhs.order) }
        static func == (lhs: Item, rhs: Item) -> Bool { lhs.due == rhs.due && lhs.order == rhs.order }
    }

    private struct State {
        var heap = Heap<Item>()
        var nextOrder: UInt64 = 0
        var isThreadStarted = false
    }

    private let state = LockedValue(State())
    private let wakeSignal = DispatchSemaphore(value: 0)

    /// Runs `fire` on the scheduler thread at or after `time`, unless cancelled first.
    func schedule(at time: DispatchTime, _ fire: @escaping @Sendable () -> Void) -> ScheduledEventHandle {
        let handle = ScheduledEventHandle(dueTime: time)
        let (isEarliest, mustStart) = state.withLock { state in
            let item = Item(due: time.uptimeNanoseconds, order: state.nextOrder, handle: handle, fire: fire)
            state.nextOrder += 1
            state.heap.insert(item)
            let mustStart = !state.isThreadStarted
            state.isThreadStarted = true
            return (state.heap.min?.order == item.order, mustStart)
        }
        if mustStart {
            let thread = Thread { [self] in run() }
            thread.name = "EventDrivenSwift.scheduler"
            thread.start()
        } else if isEarliest {
            wakeSignal.signal()
        }
        return handle
    }

    /// How many scheduled dispatches are waiting, cancelled ones included until their time.
    var pendingCount: Int { state.withLock { $0.heap.count } }

    private func run() {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            var due: [Item] = []
            let next: UInt64? = state.withLock { state in
                while let first = state.heap.min, first.due <= now {
                    due.append(state.heap.removeMin())
                }
                return state.heap.min?.due
            }
            for item in due where item.handle.transition(to: .fired) {
                item.fire()
            }
            if let next {
                _ = wakeSignal.wait(timeout: DispatchTime(uptimeNanoseconds: next))
            } else {
                wakeSignal.wait()
            }
        }
    }
}
