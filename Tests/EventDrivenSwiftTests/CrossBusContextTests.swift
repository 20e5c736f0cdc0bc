// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// Each bus runs its listeners on threads of its own (SPEC D6), which its shutdown stops and its
/// statistics count. A listener of one bus that ran on another bus's EventThread, by
/// `.thread(t)` or by `.requesterThread` inside that thread's callback, let the first bus's
/// shutdown stop the other's thread, and was counted on the other bus.
@Suite("D6: a listener and another bus's thread")
struct CrossBusContextTests {
    private struct Tick: Eventable { let n: Int }
    private struct Pong: Eventable {}

    @Test(".thread(t) of another bus's t fails with threadOfAnotherBus, and the first bus's shutdown leaves t running")
    func threadOfAnotherBusRefused() async {
        let busA = EventBus(label: "cross.thread.A")
        let busB = EventBus(label: "cross.thread.B")
        let errors = CoreRecorder<EventDrivenError>()
        busA.setErrorHandler { errors.append($0) }
        let thread = EventThread(bus: busB)
        let onB = CoreCounter()
        busB.listen(Tick.self, executeOn: .thread(thread)) { _, _ in onB.increment() }
        let handle = busA.listen(Tick.self, executeOn: .thread(thread)) { _, _ in }
        #expect(handle.registrationError?.code == .threadOfAnotherBus)
        #expect(errors.values.map(\.code) == [.threadOfAnotherBus])
        #expect(busA.subscriberCount(for: Tick.self) == 0)
        await busA.shutdown()
        busB.queue(Tick(n: 1))
        await busB.drain()
        #expect(onB.count == 1, "B: \(busB.statistics)")
        #expect(!thread.isCancelled)
        await busB.shutdown()
    }

    @Test("a channel subscription on another bus's thread is reported and removed")
    func channelOnAnotherBusThread() async {
        let busA = EventBus(label: "cross.channel.A")
        let busB = EventBus(label: "cross.channel.B")
        let errors = CoreRecorder<EventDrivenError>()
        busA.setErrorHandler { errors.append($0) }
        let thread = EventThread(bus: busB)
        let channel = EventChannel<Int>(label: "cross")
        let received = CoreCounter()
        let subscription = busA.subscribe(channel, on: .thread(thread)) { _ in received.increment() }
        busA.publish(channel, 1)
        await busA.drain()
        #expect(errors.values.map(\.code) == [.threadOfAnotherBus])
        #expect(received.count == 0)
        #expect(busA.subscriberCount(for: channel) == 0)
        subscription.cancel()
        await busA.shutdown()
        await busB.shutdown()
    }

    @Test("a default listener registered inside another bus's EventThread callback runs on its own bus's context")
    func requesterContextOfAnotherBus() async {
        let busA = EventBus(label: "cross.requester.A")
        let busB = EventBus(label: "cross.requester.B")
        let thread = EventThread(bus: busB)
        let onA = CoreCounter()
        let onB = CoreCounter()
        let handles = CoreRecorder<EventListenerHandle>()
        busB.listen(Tick.self, executeOn: .thread(thread)) { tick, _ in
            onB.increment()
            if tick.n == 0 { handles.append(busA.listen(Pong.self) { _, _ in onA.increment() }) }
        }
        busB.queue(Tick(n: 0))
        await busB.drain()
        #expect(handles.values.first?.registrationError == nil)
        busA.queue(Pong())
        await busA.drain()
        #expect(onA.count == 1)
        // Counted on the bus it was dispatched on, not on the thread's bus.
        #expect(busA.statistics.delivered == 1, "A: \(busA.statistics)")
        await busA.shutdown()
        busB.queue(Tick(n: 1))
        await busB.drain()
        #expect(onB.count == 2, "B: \(busB.statistics)")
        #expect(!thread.isCancelled)
        await busB.shutdown()
        #expect(busB.statistics.delivered == 2, "B: \(busB.statistics)")
    }
}
