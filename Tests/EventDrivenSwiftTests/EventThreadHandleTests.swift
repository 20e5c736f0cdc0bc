// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import Testing

/// An EventThread that keeps the handles of its own callbacks, as 5.2's tests did
/// (`token = addEventCallback(self.onEvent, …)`): a handle must not keep its callback, and so
/// the thread, alive once the thread is cancelled.
@Suite("T4: an EventThread keeping its own handles")
struct EventThreadHandleTests {
    private struct Tick: Eventable {}

    /// Keeps the handle of its one callback, a method of its own. `@unchecked`: `handle` is set
    /// once, at init, before any event.
    private final class HandleKeepingThread: EventThread, @unchecked Sendable {
        var handle: EventListenerHandle?
        let ticks = CoreCounter()

        override func registerEventListeners() {
            handle = addEventCallback(onTick, forEventType: Tick.self)
        }

        func onTick(_ event: Tick, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            ticks.increment()
        }
    }

    @Test("a cancelled thread that keeps the handle of its own method is freed once unreferenced")
    func cancelledThreadKeepingItsHandleIsFreed() async {
        let bus = EventBus(label: #function)
        weak var weakThread: HandleKeepingThread?
        weak var weakHandle: EventListenerHandle?
        do {
            let thread = HandleKeepingThread(bus: bus)
            weakThread = thread
            weakHandle = thread.handle
            Tick().queue(on: bus)
            await bus.drain()
            #expect(thread.ticks.count == 1)
            #expect(thread.handle?.isActive == true)
            #expect(thread.cancel() == 0)
            #expect(thread.handle?.isActive == false, "cancelling the thread removes its callbacks")
        }
        await bus.drain()
        #expect(weakThread == nil, "the handle kept the callback, the callback the thread")
        #expect(weakHandle == nil)
        #expect(bus.subscriberCount(for: Tick.self) == 0)
        await bus.shutdown()
    }

    /// Keeps the handle of a listener whose closure captures it.
    private final class Model: Sendable {
        let handle = LockedValue<EventListenerHandle?>(nil)
        let seen = CoreCounter()
    }

    @Test("a listener removed by the bus's shutdown frees the owner that kept its handle")
    func shutdownFreesTheOwnerKeepingItsHandle() async {
        let bus = EventBus(label: #function)
        weak var weakModel: Model?
        do {
            let model = Model()
            weakModel = model
            let handle = bus.listen(Tick.self, executeOn: .listenerThread) { _, _ in model.seen.increment() }
            model.handle.withLock { $0 = handle }
            Tick().queue(on: bus)
            await bus.drain()
            #expect(model.seen.count == 1)
            await bus.shutdown()
            #expect(model.handle.withLock { $0?.isActive } == false)
        }
        #expect(weakModel == nil, "the handle kept the closure, the closure the model")
    }

    @Test("a handle stays active while its listener is registered, whoever else holds it")
    func handleOfARegisteredListenerStaysActive() async {
        let bus = EventBus(label: #function)
        let seen = CoreCounter()
        let handle = bus.listen(Tick.self, executeOn: .listenerThread) { _, _ in seen.increment() }
        #expect(handle.isActive)
        Tick().queue(on: bus)
        await bus.drain()
        #expect(seen.count == 1)
        #expect(handle.isActive, "the bus keeps the listener; the handle only refers to it")
        handle.cancel()
        #expect(!handle.isActive)
        Tick().queue(on: bus)
        await bus.drain()
        #expect(seen.count == 1)
        await bus.shutdown()
    }
}
