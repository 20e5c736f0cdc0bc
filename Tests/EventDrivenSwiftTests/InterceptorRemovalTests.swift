// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import ServiceContextModule
import Testing

private struct Held: Eventable {}

/// Holds the first dispatch it sees until opened.
private final class HoldingInterceptor: EventInterceptor {
    let entered = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)

    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        entered.signal()
        gate.wait()
    }
}

/// Counts what reaches it.
private final class CountingInterceptor: EventInterceptor {
    let calls = CoreRecorder<String>()

    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) { calls.append("dispatch") }
    func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) { calls.append("deliver") }
}

@Suite("A removed interceptor sees nothing more (issue 26, item 10; SPEC M2)")
struct InterceptorRemovalTests {
    @Test("removed while a dispatch is held in an earlier interceptor's didDispatch: it gets neither call")
    func removedDuringAHeldDispatch() async {
        let bus = EventBus(label: "interceptors.removed")
        let holding = HoldingInterceptor()
        let counting = CountingInterceptor()
        bus.addInterceptor(holding)
        let handle = bus.addInterceptor(counting)
        bus.listen(Held.self, executeOn: .listenerThread) { _, _ in }
        let dispatched = DispatchSemaphore(value: 0)
        DispatchQueue(label: "test-producer").async {  // not the global queue: Swift's tasks run there
            Held().queue(on: bus)
            dispatched.signal()
        }
        await coreWait(holding.entered)
        handle.cancel()
        holding.gate.signal()
        await coreWait(dispatched)
        await bus.drain()
        #expect(counting.calls.values.isEmpty)
        await bus.shutdown()
    }
}
