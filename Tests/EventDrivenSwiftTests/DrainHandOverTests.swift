// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// A mailbox whose drains run on a queue's threads goes idle and is woken again, and each drain
/// may run on another thread than the one before. Whatever a drain wrote (the drainer's buffers)
/// must be visible to the next: the push that wakes it acquires what the drain that parked
/// released. Without that acquire, ThreadSanitizer reported a data race between two drains of a
/// listener's serial context once, in a CI run of the whole suite (StressTests). This test takes
/// this hand-over up to 8,000 times (2,000 events to 4 listeners) under ThreadSanitizer in CI,
/// but did not reproduce that report in 3 runs before the fix: it checks the outcome, not the race.
@Suite("D4/A4: drains hand a mailbox over from thread to thread")
struct DrainHandOverTests {
    struct Item: Eventable { let value: Int }

    @Test("listeners on a global queue get every event, their drains running on any of the queue's threads")
    func globalQueueDrains() async {
        let bus = EventBus(label: #function)
        // A global queue: a drain goes idle as soon as nothing is pending, and the next one runs
        // on whichever of the queue's threads is free. Four listeners, each with a mailbox of its
        // own, keep the threads changing hands.
        let queue = DispatchQueue.global()
        let listeners = 4
        let handled = DispatchSemaphore(value: 0)
        let seen = (0..<listeners).map { _ in CoreRecorder<Int>() }
        let handles = (0..<listeners).map { index in
            bus.listen(Item.self, executeOn: .queue(queue)) { item, _ in
                seen[index].append(item.value)
                handled.signal()
            }
        }
        let count = 2_000
        await coreOnThreads(1) { _ in
            for value in 0..<count {
                bus.queue(Item(value: value))
                for _ in 0..<listeners { handled.wait() }
            }
        }
        for index in 0..<listeners {
            #expect(seen[index].values == Array(0..<count), "every event, once, in order")
        }
        for handle in handles { handle.cancel() }
        await bus.shutdown()
    }
}
