// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import EventDrivenSwift

@Suite("EventThread (T1–T6)")
struct EventThreadTests {
    @Test("T1: registerEventListeners runs at init; callbacks run one at a time on the thread, in D3 order")
    func callbacksRunSeriallyOnTheThread() async {
        let bus = EventBus(label: "T1")
        let thread = ProbeThread(bus: bus)
        #expect(bus.subscriberCount(for: Step.self) == 1, "registered before init returns")
        Hold().queue(on: bus)
        await thread.gate.waitUntilEntered()
        Step(label: "q1").queue(on: bus, priority: .normal)
        Step(label: "s1").stack(on: bus, priority: .normal)
        Step(label: "q2").queue(on: bus, priority: .high)
        Step(label: "s2").stack(on: bus, priority: .low)
        Step(label: "s3").stack(on: bus, priority: .normal)
        Step(label: "q3").queue(on: bus, priority: .lowest)
        thread.gate.open()
        await bus.drain()
        #expect(thread.order.values == ["s3", "s1", "s2", "q2", "q1", "q3"])
        await coreOnThreads(4) { producer in
            for index in 0..<500 { Step(label: "p\(producer)-\(index)").queue(on: bus) }
        }
        await bus.drain()
        #expect(thread.order.count == 6 + 2_000)
        #expect(thread.overlap.maximumOverlap == 1, "one callback at a time")
        #expect(Set(thread.threads.values).count == 1, "always the same thread")
        #expect(thread.threads.values.first != coreThreadID())
        thread.cancel()
    }

    @Test("T2: a parked thread wakes at once for a new event")
    func parkedThreadWakes() async {
        let bus = EventBus(label: "T2")
        let thread = ProbeThread(bus: bus)
        Step(label: "first").queue(on: bus)
        await coreWait(thread.arrived)
        #expect(await coreEventually { thread.mailbox.state.isParked }, "the thread parks once nothing is pending")
        #expect(thread.pendingEventCount == 0)
        // No drain() here: only the event itself can wake the parked thread.
        Step(label: "second").queue(on: bus)
        await coreWait(thread.arrived)
        #expect(thread.order.values == ["first", "second"])
        thread.cancel()
    }

    @Test("T3: several callbacks per type run in registration order, and cancel() stops one")
    func severalCallbacksAndRemove() async throws {
        let bus = EventBus(label: "T3")
        let thread = TwoCallbackThread(bus: bus)
        #expect(bus.subscriberCount(for: Step.self) == 2)
        Hold().queue(on: bus)
        await thread.gate.waitUntilEntered()
        Step(label: "a").queue(on: bus)
        Step(label: "b").stack(on: bus)
        thread.gate.open()
        await bus.drain()
        #expect(thread.order.values == ["first b", "second b", "first a", "second a"])
        let handle = try #require(thread.secondHandle)
        #expect(handle.isActive)
        handle.cancel()
        #expect(!handle.isActive)
        #expect(bus.subscriberCount(for: Step.self) == 1)
        Step(label: "c").queue(on: bus)
        await bus.drain()
        #expect(thread.order.values.suffix(1) == ["first c"])
        thread.cancel()
    }

    @Test("T4: cancel() from another thread finishes the callback in progress and reports the discarded events")
    func cancelReportsDiscarded() async {
        let bus = EventBus(label: "T4")
        let thread = ProbeThread(bus: bus)
        await queueBehindHold(steps: 10, gate: thread.gate, on: bus)
        #expect(thread.pendingEventCount == 11)
        let result = Task { await coreOnPlainThread { thread.cancel() } }
        // cancel() closes the mailbox, then waits for the callback in progress.
        #expect(await coreEventually { thread.pendingEventCount == 1 })
        thread.gate.open()
        #expect(await result.value == 10)
        #expect(thread.order.count == 0, "nothing runs after the callback in progress")
        #expect(thread.isCancelled)
        #expect(bus.statistics.discarded == 10)
        #expect(bus.subscriberCount(for: Step.self) == 0)
        #expect(thread.cancel() == 0, "a second cancel does nothing")
    }

    @Test("T4: cancel() from the thread's own callback discards the rest of the batch and counts it")
    func cancelFromOwnCallback() async {
        let bus = EventBus(label: "T4-own")
        let thread = ProbeThread(bus: bus)
        Hold().queue(on: bus)
        await thread.gate.waitUntilEntered()
        Stop().queue(on: bus)
        for index in 0..<10 { Step(label: "\(index)").queue(on: bus) }
        thread.gate.open()
        await coreWait(thread.cancelled)
        #expect(thread.cancelResult.values == [10])
        // The drainer counts what it skipped once the cancelling callback has returned.
        #expect(await coreEventually { bus.statistics.discarded == 10 })
        #expect(thread.order.count == 0)
    }

    @Test(
        "T4: with two callbacks for a type, cancel() from another thread counts both deliveries of every pending event")
    func cancelCountsEveryCallback() async {
        let bus = EventBus(label: "T4-two")
        let thread = TwoCallbackThread(bus: bus)
        await queueBehindHold(steps: 10, gate: thread.gate, on: bus)
        #expect(thread.pendingEventCount == 21, "the callback in progress and two deliveries per event")
        let result = Task { await coreOnPlainThread { thread.cancel() } }
        #expect(await coreEventually { thread.pendingEventCount == 1 })
        thread.gate.open()
        #expect(await result.value == 20)
        #expect(thread.order.count == 0)
        #expect(bus.statistics.discarded == 20)
    }

    @Test("T4: cancel() from the first of two callbacks stops before the second, and counts what it skipped")
    func cancelBetweenTwoCallbacks() async {
        let bus = EventBus(label: "T4-between")
        let thread = TwoCallbackThread(bus: bus, cancelsOnFirst: true)
        await queueBehindHold(steps: 3, gate: thread.gate, on: bus)
        thread.gate.open()
        await coreWait(thread.cancelled)
        #expect(thread.order.values == ["first 0"], "the second callback of the same event does not run")
        #expect(thread.cancelResult.values == [5], "the second callback of event 0 and both of events 1 and 2")
        #expect(await coreEventually { bus.statistics.discarded == 5 })
    }

    @Test("T2: a callback removed while its events wait is skipped; the other callback of the type still runs")
    func removedCallbackIsSkipped() async {
        let bus = EventBus(label: "T2-removed")
        let thread = TwoCallbackThread(bus: bus)
        await queueBehindHold(steps: 3, gate: thread.gate, on: bus)
        thread.secondHandle?.cancel()
        thread.gate.open()
        await bus.drain()
        #expect(thread.order.values == ["first 0", "first 1", "first 2"])
        #expect(bus.statistics.delivered == 4, "the Hold and three first callbacks")
        thread.cancel()
    }

    @Test("T4: cancel(draining: true) delivers everything pending first")
    func cancelDraining() async {
        let bus = EventBus(label: "T4-draining")
        let thread = ProbeThread(bus: bus)
        await queueBehindHold(steps: 10, gate: thread.gate, on: bus)
        let result = Task { await coreOnPlainThread { thread.cancel(draining: true) } }
        thread.gate.open()
        #expect(await result.value == 0)
        #expect(thread.order.values == (0..<10).map { "\($0)" })
        Step(label: "after").queue(on: bus)
        await bus.drain()
        #expect(thread.order.count == 10, "nothing is accepted once cancelled")
        #expect(bus.statistics.undelivered == 1)
    }

    @Test("T4: cancel(draining: true) from the thread's own callback still delivers what is pending")
    func cancelDrainingFromOwnCallback() async {
        let bus = EventBus(label: "T4-draining-own")
        let thread = ProbeThread(bus: bus)
        Hold().queue(on: bus)
        await thread.gate.waitUntilEntered()
        StopDraining().queue(on: bus)
        for step in 0..<5 { Step(label: "\(step)").queue(on: bus) }
        thread.gate.open()
        #expect(await poolWait(thread.cancelled))
        // A guard against hanging, not a timing: before the fix, no step ever arrived.
        #expect(await poolWait(thread.arrived, count: 5))
        #expect(thread.cancelResult.values == [0])
        #expect(thread.order.values == (0..<5).map { "\($0)" })
        #expect(thread.isCancelled)
        await bus.shutdown()
        #expect(bus.statistics.discarded == 0)
    }

    @Test("T4: a cancelled EventThread is freed once unreferenced")
    func cancelledThreadIsFreed() async {
        let bus = EventBus(label: "T4-freed")
        weak var weakThread: ProbeThread?
        do {
            let thread = ProbeThread(bus: bus)
            weakThread = thread
            Step(label: "x").queue(on: bus)
            await coreWait(thread.arrived)
            #expect(thread.cancel() == 0)
        }
        #expect(weakThread == nil)
        #expect(bus.subscriberCount(for: Step.self) == 0)
    }

    @Test("T4: an EventThread whose callbacks do not capture it is freed and unregistered when dropped")
    func uncapturedThreadIsFreed() async {
        let bus = EventBus(label: "T4-dropped")
        weak var weakThread: DetachedThread?
        do {
            let thread = DetachedThread(bus: bus)
            weakThread = thread
            Step(label: "detached").queue(on: bus)
            await bus.drain()
        }
        #expect(weakThread == nil)
        #expect(bus.subscriberCount(for: Step.self) == 0)
        #expect(DetachedThread.seen.values.contains("detached"))
    }

    // Found under `swift test` on Linux: the Swift Testing runner's async entry point services the
    // main queue (and so the main actor), but through `dispatchMain()`, which retires the original
    // main thread; main-queue work then runs on a dispatch worker and `Thread.isMainThread` is
    // false even in a `@MainActor` test body. So this test checks main-queue identity with a
    // queue-specific key, and awaits on the main actor so that the main queue is free to drain.
    @Test("T5: UIEventThread callbacks run on the main actor (main queue), in order")
    @MainActor
    func uiEventThreadRunsOnMain() async {
        let bus = EventBus(label: "T5")
        _ = EventThreadTests.mainQueueKey
        let thread = MainProbeThread(bus: bus)
        for index in 0..<200 { Step(label: "\(index)").queue(on: bus) }
        // The main actor is free while this test awaits, so the main queue drains the events.
        await bus.drain()
        #expect(thread.order.values == (0..<200).map { "\($0)" })
        #expect(thread.onMainQueue.count == 200 && thread.onMainQueue.values.allSatisfy { $0 })
        #expect(thread.cancel() == 0)
    }

    @Test("T6: observers are held weakly, can be removed, and withObservers filters by protocol")
    func observers() async {
        let bus = EventBus(label: "T6")
        let thread = ObservedThread(bus: bus)
        let thermometer = ThermometerObserver()
        let both = BothObserver()
        var transient: ThermometerObserver? = ThermometerObserver()
        weak let weakTransient = transient
        thread.addObserver(thermometer)
        thread.addObserver(thermometer)  // added twice, kept once
        thread.addObserver(both)
        thread.addObserver(transient!)
        #expect(thread.observers.count == 3)
        transient = nil
        #expect(weakTransient == nil, "observers are held weakly")
        #expect(thread.observers.count == 2)
        Step(label: "21").queue(on: bus)
        await bus.drain()
        #expect(thermometer.readings.values == [21])
        #expect(both.readings.values == [21])
        var barometers = 0
        thread.withObservers { (observer: Barometer) in
            barometers += 1
            observer.pressure(1_013)
        }
        #expect(barometers == 1)
        #expect(both.pressures.values == [1_013])
        thread.removeObserver(thermometer)
        Step(label: "22").queue(on: bus)
        await bus.drain()
        #expect(thermometer.readings.values == [21])
        #expect(both.readings.values == [21, 22])
        thread.cancel()
    }
}

extension EventThreadTests {
    /// Holds the thread in its `Hold` callback, then queues `count` steps behind it.
    func queueBehindHold(steps count: Int, gate: CoreGate, on bus: EventBus) async {
        Hold().queue(on: bus)
        await gate.waitUntilEntered()
        for index in 0..<count { Step(label: "\(index)").queue(on: bus) }
    }

    struct Hold: Eventable {}

    struct Step: Eventable {
        let label: String
    }

    struct Stop: Eventable {}
    struct StopDraining: Eventable {}

    /// Records what its callbacks see; every stored property is itself thread-safe.
    final class ProbeThread: EventThread, @unchecked Sendable {  // stored properties are Sendable recorders
        let order = CoreRecorder<String>()
        let threads = CoreRecorder<UInt>()
        let overlap = CoreOverlapProbe()
        let gate = CoreGate()
        let arrived = DispatchSemaphore(value: 0)
        let cancelResult = CoreRecorder<Int>()
        let cancelled = DispatchSemaphore(value: 0)

        override func registerEventListeners() {
            addEventCallback(onStep, forEventType: Step.self)
            addEventCallback(onHold, forEventType: Hold.self)
            addEventCallback(onStop, forEventType: Stop.self)
            addEventCallback(onStopDraining, forEventType: StopDraining.self)
        }

        func onStep(_ event: Step, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            overlap.run {
                order.append(event.label)
                threads.append(coreThreadID())
            }
            arrived.signal()
        }

        func onHold(_ event: Hold, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            gate.block()
        }

        func onStop(_ event: Stop, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            cancelResult.append(cancel())
            cancelled.signal()
        }

        func onStopDraining(_ event: StopDraining, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            cancelResult.append(cancel(draining: true))
            cancelled.signal()
        }
    }

    /// Registers closures that do not capture the thread, so dropping it frees it without cancel().
    final class DetachedThread: EventThread, @unchecked Sendable {  // no mutable state
        static let seen = CoreRecorder<String>()

        override func registerEventListeners() {
            addEventCallback(Step.self) { event, _ in DetachedThread.seen.append(event.label) }
        }
    }

    /// Two callbacks for one type; the first may cancel the thread.
    final class TwoCallbackThread: EventThread, @unchecked Sendable {  // Sendable stores; vars set before events
        let order = CoreRecorder<String>()
        let gate = CoreGate()
        let cancelResult = CoreRecorder<Int>()
        let cancelled = DispatchSemaphore(value: 0)
        var cancelsOnFirst = false
        var secondHandle: EventListenerHandle?

        convenience init(bus: EventBus, cancelsOnFirst: Bool) {
            self.init(bus: bus)
            self.cancelsOnFirst = cancelsOnFirst
        }

        override func registerEventListeners() {
            addEventCallback(Hold.self) { [gate] _, _ in gate.block() }
            addEventCallback(Step.self) { [unowned self] event, _ in
                order.append("first \(event.label)")
                if cancelsOnFirst {
                    cancelResult.append(cancel())
                    cancelled.signal()
                }
            }
            secondHandle = addEventCallback(Step.self) { [order] event, _ in order.append("second \(event.label)") }
        }
    }

    final class MainProbeThread: UIEventThread, @unchecked Sendable {  // stored properties are Sendable recorders
        let order = CoreRecorder<String>()
        let onMainQueue = CoreRecorder<Bool>()

        override func registerEventListeners() {
            addEventCallback(onStep, forEventType: Step.self)
        }

        func onStep(_ event: Step, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            order.append(event.label)
            onMainQueue.append(DispatchQueue.getSpecific(key: EventThreadTests.mainQueueKey) == true)
        }
    }

    /// Marks the main queue, to tell main-queue (main actor) code apart from other code on any platform.
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    protocol Thermometer: AnyObject {
        func reading(_ value: Float)
    }

    protocol Barometer: AnyObject {
        func pressure(_ value: Float)
    }

    final class ThermometerObserver: Thermometer, @unchecked Sendable {  // state is a Sendable recorder
        let readings = CoreRecorder<Float>()
        func reading(_ value: Float) { readings.append(value) }
    }

    final class BothObserver: Thermometer, Barometer, @unchecked Sendable {  // state is Sendable recorders
        let readings = CoreRecorder<Float>()
        let pressures = CoreRecorder<Float>()
        func reading(_ value: Float) { readings.append(value) }
        func pressure(_ value: Float) { pressures.append(value) }
    }

    /// Tells its observers about each step, as the README's TemperatureProcessor does.
    final class ObservedThread: EventThread, @unchecked Sendable {  // no mutable state of its own
        override func registerEventListeners() {
            addEventCallback(onStep, forEventType: Step.self)
        }

        func onStep(_ event: Step, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            withObservers { (observer: Thermometer) in observer.reading(Float(event.label) ?? .nan) }
        }
    }
}
