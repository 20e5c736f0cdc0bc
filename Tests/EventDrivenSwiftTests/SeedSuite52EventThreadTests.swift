// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// Ported from EventDrivenSwift 5.2's BasicEventThreadTests, in our API: dispatching to a thread
/// directly, through `EventCentral` and through the event itself, and the batch order on the
/// receivers the original's listeners could use.
@Suite("Seed suite: EventDrivenSwift 5.2 EventThread")
struct SeedSuite52EventThreadTests {
    @Test(
        "T1: queueEvent and stackEvent on the thread reach its callback; a cancelled callback gets no more",
        arguments: [false, true])
    func dispatchToTheThread(stacked: Bool) async {
        let bus = EventBus(label: "seed52-direct")
        let thread = FooThread(bus: bus)
        OtherEvent(bar: "nobody listens").queue(on: bus)
        #expect(thread.foo == 0)
        if stacked {
            thread.stackEvent(FooEvent(foo: 1000), priority: .normal)
        } else {
            thread.queueEvent(FooEvent(foo: 1000), priority: .normal)
        }
        await bus.drain()
        #expect(thread.foo == 1000)
        thread.handle?.cancel()
        thread.queueEvent(FooEvent(foo: 7))
        await bus.drain()
        #expect(thread.foo == 1000)
        _ = thread.cancel()
        #expect(thread.isCancelled)
        await bus.shutdown()
    }

    @Test("D6: EventCentral.queueEvent/stackEvent and event.queue()/stack() reach a thread on the shared bus")
    func dispatchThroughTheSharedBus() async {
        let thread = CentralThread()
        EventCentral.queueEvent(CentralQueued(foo: 1000), priority: .high)
        EventCentral.stackEvent(CentralStacked(foo: 1000), priority: .low)
        await EventCentral.shared.drain()
        #expect(Set(thread.seen.values) == ["central queued 1000 p1", "central stacked 1000 p3"])
        EventQueued(foo: 1000).queue()
        EventStacked(foo: 1000).stack(priority: .highest)
        await EventCentral.shared.drain()
        #expect(
            Set(thread.seen.values) == [
                "central queued 1000 p1", "central stacked 1000 p3", "event queued 1000 p2", "event stacked 1000 p0",
            ])
        _ = thread.cancel()
    }

    /// DispatchOrderTests checks the README batch on the listener thread; here the same batch
    /// reaches an EventThread's listener and a `.requesterThread` context.
    @Test(
        "D3: the README batch runs as s3 s1 s2 q2 q1 q3 on an EventThread and a requester's context",
        arguments: [true, false])
    func readmeBatchOrder(onEventThread: Bool) async {
        let bus = EventBus(label: "seed52-d3")
        let thread = SeedThread(bus: bus)
        let gate = CoreGate()
        let log = CoreRecorder<String>()
        seedListen(on: bus, onEventThread ? .thread(thread) : .requesterThread, gate: gate, log: log)
        SeedTagged(tag: "gate").queue(on: bus)
        await gate.waitUntilEntered()
        SeedReadmeBatch.dispatch(on: bus)
        gate.open()
        await bus.drain()
        #expect(log.values == SeedReadmeBatch.handled)
        _ = thread.cancel()
        await bus.shutdown()
    }
}

extension SeedSuite52EventThreadTests {
    struct FooEvent: Eventable { var foo: Int }
    struct OtherEvent: Eventable { var bar: String }

    /// The original's thread: one bound-method callback, whose handle it keeps.
    final class FooThread: EventThread, @unchecked Sendable {  // foo is locked; handle is set at init
        @ThreadSafeSemaphore var foo: Int = 0
        var handle: EventListenerHandle?

        override func registerEventListeners() {
            handle = addEventCallback(self.onFoo, forEventType: FooEvent.self)
        }

        func onFoo(_ event: FooEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            foo = event.foo
        }
    }

    // The shared bus is shared by every test: these types are this test's alone.
    struct CentralQueued: Eventable { var foo: Int }
    struct CentralStacked: Eventable { var foo: Int }
    struct EventQueued: Eventable { var foo: Int }
    struct EventStacked: Eventable { var foo: Int }

    /// Records each event as "how it came, its value, its priority".
    final class CentralThread: EventThread, @unchecked Sendable {  // seen is a Sendable recorder
        let seen = CoreRecorder<String>()

        override func registerEventListeners() {
            let seen = self.seen
            addEventCallback(
                { (event: CentralQueued, priority, _) in
                    seen.append("central queued \(event.foo) p\(priority.rawValue)")
                },
                forEventType: CentralQueued.self)
            addEventCallback(
                { (event: CentralStacked, priority, _) in
                    seen.append("central stacked \(event.foo) p\(priority.rawValue)")
                },
                forEventType: CentralStacked.self)
            addEventCallback(
                { (event: EventQueued, priority, _) in seen.append("event queued \(event.foo) p\(priority.rawValue)") },
                forEventType: EventQueued.self)
            addEventCallback(
                { (event: EventStacked, priority, _) in seen.append("event stacked \(event.foo) p\(priority.rawValue)")
                },
                forEventType: EventStacked.self)
        }
    }
}
