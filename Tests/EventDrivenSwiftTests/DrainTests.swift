// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Testing

@testable import EventDrivenSwift

@Suite("A3: drain")
struct DrainTests {
    private struct Reading: Eventable { let value: Int }

    @Test("A3: drain waits for deliveries still queued for a listener removed before the call")
    func drainCoversRemovedListeners() async {
        await expectDrainWaitsForRemovedListener(label: "drain-removed") { bus, gate, recorder in
            bus.listen(Reading.self) { event, _ in
                gate.block()
                recorder.append(event.value)
            }
        }
    }

    @Test("A3: drain waits for an async listener removed before the call to finish what it holds")
    func drainCoversRemovedAsyncListeners() async {
        await expectDrainWaitsForRemovedListener(label: "drain-removed-async") { bus, gate, recorder in
            bus.listenAsync(Reading.self) { (event: Reading) async in
                await gate.suspend()
                recorder.append(event.value)
            }
        }
    }

    /// Registers a listener with `listen`, whose handler blocks on the gate then records the
    /// event; dispatches three events and removes the listener while the first is in its handler.
    /// The drain must not be over before the gate opens; afterwards, the one delivery that
    /// started has run and the two others are counted as discarded.
    private func expectDrainWaitsForRemovedListener(
        label: String, listen: (EventBus, CoreGate, CoreRecorder<Int>) -> EventListenerHandle
    ) async {
        let bus = EventBus(label: label)
        let gate = CoreGate()
        let recorder = CoreRecorder<Int>()
        let handle = listen(bus, gate, recorder)
        for value in 1...3 { bus.queue(Reading(value: value)) }
        await gate.waitUntilEntered()
        handle.cancel()
        let drained = DispatchSemaphore(value: 0)
        bus.whenDrained { drained.signal() }
        let finishedEarly = drained.wait(timeout: .now()) == .success
        #expect(!finishedEarly, "a handler is still running")
        gate.open()
        if !finishedEarly { await coreWait(drained) }
        let statistics = bus.statistics
        #expect(statistics.delivered == recorder.count, "every delivery counted has run its handler")
        #expect(statistics.delivered == 1)
        #expect(statistics.discarded == 2)
    }

    @Test("A3: drain returns at once on an idle bus and after every receiver kind has run")
    func drainCoversEveryReceiver() async {
        let bus = EventBus(label: "drain-kinds")
        let seen = CoreRecorder<String>()
        let listeners = [
            bus.listen(Reading.self, executeOn: .listenerThread) { _, _ in seen.append("listener") },
            bus.listen(Reading.self, executeOn: .taskThread) { _, _ in seen.append("task") },
            bus.listen(Reading.self) { _, _ in seen.append("requester") },
        ]
        await bus.drain()
        bus.queue(Reading(value: 1))
        await bus.drain()
        #expect(Set(seen.values) == ["listener", "task", "requester"])
        #expect(seen.values.count == 3)
        for listener in listeners { listener.cancel() }
    }
}
