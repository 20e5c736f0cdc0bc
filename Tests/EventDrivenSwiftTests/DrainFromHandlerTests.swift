// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Testing

@testable import EventDrivenSwift

/// `drain()` and `waitUntilQuiet()` awaited inside an async or actor listener's handler: they
/// must not wait for that handler itself (before, the drain's barrier sat behind the running
/// handler in its own listener's queue, and the handler never returned), nor for another such
/// handler that is waiting for this one.
@Suite("A3: drain awaited inside a handler")
struct DrainFromHandlerTests {
    private struct Trigger: Eventable { let value: Int }
    private struct FollowUp: Eventable { let value: Int }

    private actor Tally {
        var values: [Int] = []
        func record(_ value: Int) { values.append(value) }
    }

    /// How long a test waits for the handlers before it fails: a guard against hanging (before
    /// the fix, the handlers never returned), never a synchronization. Generous: under
    /// ThreadSanitizer on two busy cores, with every other test of the suite started at once,
    /// these handlers took over 30 s to return (the test process now bounds how many tests run
    /// at once: `Tests/CTestProcessSettings`).
    private static let bound = 120

    @Test("A3: drain in an async listener's handler returns once the follow-up it dispatched was handled")
    func drainInAsyncListener() async {
        let bus = EventBus(label: "drain-in-async-listener")
        let followUps = CoreRecorder<Int>()
        let seenAfterDrain = CoreRecorder<[Int]>()
        let returned = DispatchSemaphore(value: 0)
        let followUpListener = bus.listen(FollowUp.self, executeOn: .listenerThread) { event, _ in
            followUps.append(event.value)
        }
        let listener = bus.listenAsync(Trigger.self) { (trigger: Trigger) async in
            FollowUp(value: trigger.value).queue(on: bus)
            await bus.drain()
            seenAfterDrain.append(followUps.values)
            returned.signal()
        }
        Trigger(value: 1).queue(on: bus)
        let handlerReturned = await poolWait(returned, seconds: Self.bound)
        #expect(handlerReturned, "the handler's drain waited for the handler itself")
        #expect(seenAfterDrain.values == [[1]], "the follow-up dispatched before the drain was handled by then")
        listener.cancel()
        followUpListener.cancel()
    }

    @Test("A3: drain in an actor listener's handler returns; the listener's later deliveries run after the handler")
    func drainInActorListener() async {
        let bus = EventBus(label: "drain-in-actor-listener")
        let tally = Tally()
        let returned = DispatchSemaphore(value: 0)
        let listener = bus.listen(Trigger.self, on: tally) { tally, trigger in
            tally.record(trigger.value)
            if trigger.value == 1 {
                // The second trigger waits behind this handler: the drain cannot wait for it.
                Trigger(value: 2).queue(on: bus)
                await bus.drain()
            }
            returned.signal()
        }
        Trigger(value: 1).queue(on: bus)
        let bothReturned = await poolWait(returned, count: 2, seconds: Self.bound)
        #expect(bothReturned, "the handler's drain waited for the handler itself")
        #expect(await tally.values == [1, 2])
        listener.cancel()
    }

    @Test("A3: two async listeners whose handlers both drain do not wait for each other")
    func twoListenersDrainingAtOnce() async {
        let bus = EventBus(label: "drain-in-two-listeners")
        let followUps = CoreRecorder<Int>()
        let missing = CoreRecorder<Int>()
        let returned = DispatchSemaphore(value: 0)
        let followUpListener = bus.listen(FollowUp.self, executeOn: .listenerThread) { event, _ in
            followUps.append(event.value)
        }
        let listeners = (0..<2).map { index in
            bus.listenAsync(Trigger.self) { (trigger: Trigger) async in
                let value = trigger.value * 10 + index
                FollowUp(value: value).queue(on: bus)
                await bus.drain()
                if !followUps.values.contains(value) { missing.append(value) }
                returned.signal()
            }
        }
        for round in 1...10 { Trigger(value: round).queue(on: bus) }
        let allReturned = await poolWait(returned, count: 20, seconds: Self.bound)
        #expect(allReturned, "two handlers draining at once waited for each other")
        #expect(missing.values.isEmpty, "each drain returned after its own follow-up was handled")
        for listener in listeners { listener.cancel() }
        followUpListener.cancel()
    }

    @Test("A3: waitUntilQuiet in an async listener's handler returns instead of timing out")
    func waitUntilQuietInAsyncListener() async {
        let bus = EventBus(label: "quiet-in-async-listener")
        let followUps = CoreRecorder<Int>()
        let errors = CoreRecorder<String>()
        let seenAfterQuiet = CoreRecorder<[Int]>()
        let returned = DispatchSemaphore(value: 0)
        let followUpListener = bus.listen(FollowUp.self, executeOn: .listenerThread) { event, _ in
            followUps.append(event.value)
            // A second hop, which waitUntilQuiet waits for and drain would not.
            if event.value < 3 { FollowUp(value: event.value + 1).queue(on: bus) }
        }
        let listener = bus.listenAsync(Trigger.self) { (_: Trigger) async in
            FollowUp(value: 1).queue(on: bus)
            do {
                try await bus.waitUntilQuiet(timeout: .seconds(Self.bound))
            } catch {
                errors.append("\(error)")
            }
            seenAfterQuiet.append(followUps.values)
            returned.signal()
        }
        Trigger(value: 1).queue(on: bus)
        let handlerReturned = await poolWait(returned, seconds: Self.bound + 10)
        #expect(handlerReturned)
        #expect(errors.values.isEmpty, "waitUntilQuiet waited for the handler that called it")
        #expect(seenAfterQuiet.values == [[1, 2, 3]], "every hop was handled when it returned")
        listener.cancel()
        followUpListener.cancel()
    }

    @Test("A3: drain outside any handler still waits for an async listener whose handler is draining")
    func outsideDrainWaitsForDrainingHandler() async {
        let bus = EventBus(label: "outside-drain")
        let gate = CoreGate()
        let finished = CoreRecorder<Int>()
        let followUpListener = bus.listen(FollowUp.self, executeOn: .listenerThread) { _, _ in gate.block() }
        let listener = bus.listenAsync(Trigger.self) { (trigger: Trigger) async in
            FollowUp(value: trigger.value).queue(on: bus)
            await bus.drain()
            finished.append(trigger.value)
        }
        Trigger(value: 1).queue(on: bus)
        // The handler is in its drain, which waits for the follow-up held at the gate.
        await gate.waitUntilEntered()
        let drained = DispatchSemaphore(value: 0)
        bus.whenDrained { drained.signal() }
        gate.open()
        let outsideDrained = await poolWait(drained, seconds: Self.bound)
        #expect(outsideDrained)
        #expect(finished.values == [1], "the outside drain returned after the draining handler had")
        listener.cancel()
        followUpListener.cancel()
    }

    @Test("A3: a task the handler started counts as the handler only while the handler runs")
    func startedTaskCountsWhileHandlerRuns() async {
        let bus = EventBus(label: "handler-scope")
        let seen = CoreRecorder<String>()
        let handlerReturned = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let listener = bus.listenAsync(Trigger.self) { (_: Trigger) async in
            seen.append("handler: \(_HandlerScope.serialListener != nil)")
            async let child = _HandlerScope.serialListener != nil
            seen.append("child task: \(await child)")
            Task {
                await coreWait(go)
                seen.append("task after the handler returned: \(_HandlerScope.serialListener != nil)")
                done.signal()
            }
            handlerReturned.signal()
        }
        Trigger(value: 1).queue(on: bus)
        #expect(await poolWait(handlerReturned, seconds: Self.bound))
        await bus.drain()
        go.signal()
        #expect(await poolWait(done, seconds: Self.bound))
        #expect(
            seen.values == [
                "handler: true", "child task: true", "task after the handler returned: false",
            ])
        listener.cancel()
    }
}
