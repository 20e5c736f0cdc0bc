// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// Issue 25: a `UIEventThread` honours its `mailboxPolicy`.
@Suite("UIEventThread's mailbox policy")
struct UIEventThreadPolicyTests {
    struct Tick: Eventable { let value: Int }

    final class DroppingScreen: UIEventThread, @unchecked Sendable {  // state is the lock-guarded `seen`
        let seen = CoreRecorder<Int>()
        override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 10, whenFull: .dropNewest) }
        override func registerEventListeners() {
            addEventCallback(Tick.self) { [seen] event, _ in seen.append(event.value) }
        }
    }

    final class BlockingScreen: UIEventThread, @unchecked Sendable {  // state is the lock-guarded `seen`
        let seen = CoreRecorder<Int>()
        override class var mailboxPolicy: EventMailboxPolicy {
            .bounded(capacity: 2, whenFull: .blockProducer(timeout: .seconds(1)))
        }
        override func registerEventListeners() {
            addEventCallback(Tick.self) { [seen] event, _ in seen.append(event.value) }
        }
    }

    @Test("a bounded dropNewest UIEventThread keeps 10 of 100 events that arrive while the main queue is busy")
    func boundedDropsNewest() async {
        let bus = EventBus(label: "issue25-ui-policy")
        let screen = DroppingScreen(bus: bus)
        let releaseMain = await holdMainQueue()
        for value in 0..<100 { Tick(value: value).queue(on: bus) }
        releaseMain.signal()
        await bus.drain()
        #expect(screen.seen.values == Array(0..<10))
        #expect(screen.droppedEventCount == 90)
        #expect(bus.statistics.dropped == 90)
        screen.cancel()
    }

    @Test("main-queue code dispatching to a full blockProducer UIEventThread does not wait for itself")
    func mainQueueProducerNeverWaits() async {
        let bus = EventBus(label: "issue25-ui-block")
        let screen = BlockingScreen(bus: bus)
        // Five events from the main queue into a mailbox of two: the main queue drains only
        // once this code returns, so waiting for room would wait the whole timeout and drop.
        await MainActor.run {
            for value in 0..<5 { Tick(value: value).queue(on: bus) }
        }
        await bus.drain()
        #expect(screen.seen.values == Array(0..<5))
        #expect(screen.droppedEventCount == 0)
        screen.cancel()
    }
}
