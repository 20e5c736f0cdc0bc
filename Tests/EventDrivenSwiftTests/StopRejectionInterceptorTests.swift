// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import ServiceContextModule
import Testing

private struct Order: Eventable { let id: Int }
private struct Charged: Eventable { let id: Int }

/// Records which dispatches interceptors are shown as dispatched and which as rejected.
private final class DispatchSpy: EventInterceptor {
    let dispatched = CoreRecorder<String>()
    let rejected = CoreRecorder<String>()

    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        dispatched.append(describe(dispatch))
    }
    func didReject(_ dispatch: EventDispatchInfo) { rejected.append(describe(dispatch)) }

    private func describe(_ dispatch: EventDispatchInfo) -> String {
        if let order = dispatch.event as? Order { return "Order \(order.id)" }
        if let charged = dispatch.event as? Charged { return "Charged \(charged.id)" }
        return dispatch.eventType
    }
}

/// A dispatch the bus refuses during a graceful stop is one rejection to interceptors, not a
/// dispatch followed by a rejection; a handler's follow-up, which the stop admits, is a dispatch.
@Suite("M2/R5: interceptors during a graceful stop")
struct StopRejectionInterceptorTests {
    @Test("an outside dispatch refused while the bus stops is shown as rejected only; a follow-up as dispatched")
    func refusedOutsideDispatchIsOnlyRejected() async {
        let bus = EventBus(label: "stop-interceptors")
        let spy = DispatchSpy()
        bus.addInterceptor(spy)
        let gate = CoreGate()
        bus.listen(Order.self, executeOn: .listenerThread) { order, _ in
            gate.block()
            bus.queue(Charged(id: order.id))  // a follow-up: admitted while the bus stops
        }
        bus.listen(Charged.self, executeOn: .listenerThread) { _, _ in }
        bus.queue(Order(id: 1))
        await gate.waitUntilEntered()

        let stop = Task { await bus.shutdown(gracefullyWithin: .seconds(60)) }
        #expect(await coreEventually { bus.isShutDown })
        bus.queue(Order(id: 2))  // from outside the bus's handlers: refused
        gate.open()
        _ = await stop.value

        #expect(spy.rejected.values == ["Order 2"])
        #expect(spy.dispatched.values == ["Order 1", "Charged 1"], "the refused order is not shown as a dispatch")
        #expect(bus.statistics.rejectedWhileStopping == 1)
    }
}
