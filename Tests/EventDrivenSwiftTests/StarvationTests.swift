// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Synchronization
import Testing

/// Receivers that run in Swift tasks take turns with the rest of the process: an async listener's
/// task, and the drain of a listener isolated to an actor. Before, each kept its thread for as
/// long as events kept coming, and two that fed themselves (a polling loop) held both threads of
/// Swift's pool on this two-core machine: no other task of the process ran, and a
/// `bus.shutdown()` started in a task never began.
@Suite("Async listeners and actor-isolated listeners take turns with other tasks", .serialized)
struct StarvationTests {
    private struct Tick: Eventable {}
    private struct Tock: Eventable {}

    /// Registers, from inside the actor, a listener that runs isolated to it (`.requesterThread`
    /// follows the caller's isolation) and feeds itself while the loops go on.
    /// Each looper has an event type of its own: with one type for both, every event would reach
    /// both listeners and each would queue another, doubling the events at every step.
    private actor Looper<Event: Eventable> {
        let event: Event
        init(_ event: Event) { self.event = event }

        func register(on bus: EventBus, runs: LoopRuns) -> EventListenerHandle {
            let event = event
            return bus.listen(Event.self) { _, _ in
                runs.ran()
                if runs.isLooping { bus.queue(event) }
            }
        }
    }

    @Test("two async listeners that feed themselves leave room for other tasks")
    func selfFeedingAsyncListeners() async {
        let bus = EventBus(label: "starve-async")
        let runs = LoopRuns(expected: 2)
        bus.listenAsync(Tick.self) { _ in
            runs.ran()
            if runs.isLooping { bus.queue(Tick()) }
        }
        bus.listenAsync(Tock.self) { _ in
            runs.ran()
            if runs.isLooping { bus.queue(Tock()) }
        }
        let (otherTaskRan, shutdownStarted) = await Self.measure(bus: bus, runs: runs) {
            bus.queue(Tick())
            bus.queue(Tock())
        }
        #expect(otherTaskRan, "no other task ran while the listeners fed themselves")
        #expect(shutdownStarted, "a task calling bus.shutdown() did not start")
        await bus.shutdown()
    }

    @Test("two actor-isolated listeners that feed themselves leave room for other tasks")
    func selfFeedingActorListeners() async {
        let bus = EventBus(label: "starve-actor")
        let runs = LoopRuns(expected: 2)
        let handles = [
            await Looper(Tick()).register(on: bus, runs: runs), await Looper(Tock()).register(on: bus, runs: runs),
        ]
        let (otherTaskRan, shutdownStarted) = await Self.measure(bus: bus, runs: runs) {
            bus.queue(Tick())
            bus.queue(Tock())
        }
        #expect(otherTaskRan, "no other task ran while the listeners fed themselves")
        #expect(shutdownStarted, "a task calling bus.shutdown() did not start")
        for handle in handles { handle.cancel() }
        await bus.shutdown()
    }

    /// How long each step may take before the test fails: a guard against hanging (before the
    /// fix, the other task never ran), never a synchronization. Generous: under
    /// ThreadSanitizer on two busy cores, with every other test of the suite started at once,
    /// the loops took over 30 s to run 100 times each (the test process now bounds how many
    /// tests run at once: `Tests/CTestProcessSettings`).
    private static let bound: Double = 120

    /// On a thread of its own (the pool may be held: a wait there would never resume): starts
    /// the loops, waits until they run, asks a new task and a shutdown task to start, and ends
    /// the loops whatever happened, so that the process recovers.
    private static func measure(
        bus: EventBus, runs: LoopRuns, start: @escaping @Sendable () -> Void
    ) async -> (otherTaskRan: Bool, shutdownStarted: Bool) {
        await coreOnPlainThread {
            start()
            let running = runs.looping.wait(timeout: .now() + bound) == .success
            let ran = DispatchSemaphore(value: 0)
            Task.detached { ran.signal() }
            let otherTaskRan = running && ran.wait(timeout: .now() + bound) == .success
            let started = DispatchSemaphore(value: 0)
            Task.detached {
                started.signal()
                await bus.shutdown()
            }
            let shutdownStarted = started.wait(timeout: .now() + bound) == .success
            runs.stop()
            return (otherTaskRan, shutdownStarted)
        }
    }
}

/// Signals ``looping`` once the `expected` loops have run 100 times each; the loops go on
/// while ``isLooping``.
private final class LoopRuns: Sendable {
    let looping = DispatchSemaphore(value: 0)
    private let count = Atomic<Int>(0)
    private let target: Int
    private let going = Atomic<Bool>(true)

    var isLooping: Bool { going.load(ordering: .relaxed) }
    func stop() { going.store(false, ordering: .relaxed) }

    init(expected: Int) { target = expected * 100 }

    func ran() {
        if count.add(1, ordering: .relaxed).newValue == target { looping.signal() }
    }
}
