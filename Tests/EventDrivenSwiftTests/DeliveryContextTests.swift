// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// Issue 25, "one type that says where a handler runs": listeners and subscribers name their
/// context with the same ``DeliveryContext``, so a listener can run on a queue or an
/// ``EventThread`` of its own, as a channel's subscriber could.
@Suite("L3/C5: one DeliveryContext for listeners and subscribers")
struct DeliveryContextTests {
    struct Reading: Eventable { let value: Int }
    static let queueKey = DispatchSpecificKey<String>()

    @Test("a listener with executeOn: .queue(q) runs on q, one event at a time, in order")
    func listenerOnQueue() async {
        let bus = EventBus(label: "context-queue")
        let queue = DispatchQueue(label: "context-queue", attributes: .concurrent)
        queue.setSpecific(key: Self.queueKey, value: "mine")
        let seen = CoreRecorder<Int>()
        let offQueue = CoreCounter()
        let running = LockedValue(0)
        let overlapped = CoreCounter()
        let handle = bus.listen(Reading.self, executeOn: .queue(queue)) { event, _ in
            if DispatchQueue.getSpecific(key: Self.queueKey) != "mine" { offQueue.increment() }
            let depth = running.withLock { value in
                value += 1
                return value
            }
            if depth > 1 { overlapped.increment() }
            seen.append(event.value)
            running.withLock { $0 -= 1 }
        }
        for value in 0..<200 { Reading(value: value).queue(on: bus) }
        await bus.drain()
        #expect(seen.values == Array(0..<200))
        #expect(offQueue.count == 0)
        #expect(overlapped.count == 0, "serial even on a concurrent queue")
        handle.cancel()
    }

    @Test("a listener with executeOn: .thread(t) runs on t's thread, in order with t's own callbacks")
    func listenerOnThread() async {
        let bus = EventBus(label: "context-thread")
        let thread = EventThread(bus: bus)
        let threads = CoreRecorder<UInt>()
        let order = CoreRecorder<String>()
        let own = thread.addEventCallback(Reading.self) { event, _ in
            threads.append(coreThreadID())
            order.append("thread \(event.value)")
        }
        let listener = bus.listen(Reading.self, executeOn: .thread(thread)) { event, _ in
            threads.append(coreThreadID())
            order.append("listener \(event.value)")
        }
        for value in 0..<3 { Reading(value: value).queue(on: bus) }
        await bus.drain()
        #expect(Set(threads.values).count == 1, "one thread: the EventThread's")
        #expect(!threads.values.contains(coreThreadID()))
        #expect(order.values.filter { $0.hasPrefix("listener") } == ["listener 0", "listener 1", "listener 2"])
        #expect(order.values.count == 6)
        listener.cancel()
        own.cancel()
        thread.cancel()
    }

    @Test("DeliveryContext is Hashable: queues and threads by identity")
    func equality() {
        let queue = DispatchQueue(label: "one")
        #expect(DeliveryContext.queue(queue) == .queue(queue))
        #expect(DeliveryContext.queue(queue) != .queue(DispatchQueue(label: "one")))
        #expect(Set([DeliveryContext.listenerThread, .listenerThread, .synchronous]).count == 2)
    }

    @Test("5.2's ExecuteEventOn names the same type, so its cases still compile")
    func seedName() async {
        let bus = EventBus(label: "context-seed")
        let seen = CoreRecorder<Int>()
        let handles = [
            SeedSpellings.executeEventOn(.requesterThread), SeedSpellings.executeEventOn(.listenerThread),
            SeedSpellings.executeEventOn(.taskThread),
        ].map { context in
            bus.listen(Reading.self, executeOn: context) { event, _ in seen.append(event.value) }
        }
        Reading(value: 7).queue(on: bus)
        await bus.drain()
        #expect(seen.values == [7, 7, 7])
        for handle in handles { handle.cancel() }
    }
}
