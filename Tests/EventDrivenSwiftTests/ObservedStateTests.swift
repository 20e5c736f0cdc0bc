// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import ServiceContextModule
import Testing

/// A request id carried in a `ServiceContext`.
private enum RequestID: ServiceContextKey {
    typealias Value = String
}

/// Counts the dispatches and deliveries it is shown, and the request id each dispatch carries.
private final class CountingInterceptor: EventInterceptor {
    let dispatchContexts = CoreRecorder<String?>()
    let outcomes = CoreRecorder<EventDeliveryOutcome>()

    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        dispatchContexts.append(context[RequestID.self])
    }
    func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) {
        outcomes.append(result.outcome)
    }
}

@Suite("A state change is a dispatch like any other (issue 26, item 3; SPEC M2, M4)")
struct ObservedStateTests {
    @Test("every delivery context sees the setter's ServiceContext; interceptors see the change and each delivery")
    func stateChangesCarryTheirRecord() async {
        let bus = EventBus(label: "states.observed", propagatesServiceContext: true)
        let interceptor = CountingInterceptor()
        bus.addInterceptor(interceptor)
        let state = EventState<Int>(label: "level")
        let thread = EventThread(bus: bus)
        let contexts: [(name: String, context: DeliveryContext)] = [
            ("synchronous", .synchronous), ("requesterThread", .requesterThread),
            ("listenerThread", .listenerThread), ("taskThread", .taskThread), ("mainActor", .mainActor),
            ("queue", .queue(DispatchQueue(label: "states.observed.queue"))), ("thread", .thread(thread)),
        ]
        let seen = CoreRecorder<String>()
        let handled = DispatchSemaphore(value: 0)
        for (name, context) in contexts {
            bus.subscribe(state, on: context) { _ in
                seen.append("\(name): \(ServiceContext.current?[RequestID.self] ?? "none")")
                handled.signal()
            }
        }
        var context = ServiceContext.topLevel
        context[RequestID.self] = "request-1"
        ServiceContext.withValue(context) { _ = bus.set(state, to: 1) }
        for _ in contexts { await coreWait(handled) }
        await bus.drain()
        #expect(Set(seen.values) == Set(contexts.map { "\($0.name): request-1" }))
        #expect(interceptor.dispatchContexts.values == ["request-1"])
        #expect(interceptor.outcomes.values == Array(repeating: .delivered, count: contexts.count))
        #expect(bus.statistics.delivered == contexts.count)
        thread.cancel()
        await bus.shutdown()
    }

    @Test("a new subscriber's first value carries the context of the change that made it, and is reported")
    func firstValueCarriesItsChangesRecord() async {
        let bus = EventBus(label: "states.observed.first", propagatesServiceContext: true)
        let interceptor = CountingInterceptor()
        bus.addInterceptor(interceptor)
        let state = EventState<Int>(label: "level")
        var context = ServiceContext.topLevel
        context[RequestID.self] = "request-2"
        ServiceContext.withValue(context) { _ = bus.set(state, to: 5) }
        let seen = CoreRecorder<String>()
        let handled = DispatchSemaphore(value: 0)
        bus.subscribe(state, on: .listenerThread) { value in
            seen.append("\(value): \(ServiceContext.current?[RequestID.self] ?? "none")")
            handled.signal()
        }
        await coreWait(handled)
        await bus.drain()
        #expect(seen.values == ["5: request-2"])
        #expect(interceptor.dispatchContexts.values == ["request-2"])
        #expect(interceptor.outcomes.values == [.delivered])
        await bus.shutdown()
    }

    @Test("a set after shutdown is reported to interceptors as rejected")
    func rejectedSetReachesInterceptors() async {
        let bus = EventBus(label: "states.observed.rejected")
        let rejected = CoreRecorder<String>()
        bus.addInterceptor(RejectionSpy(rejected))
        await bus.shutdown()
        #expect(!bus.set(EventState<Int>(label: "level"), to: 1))
        #expect(rejected.count == 1)
    }
}

private final class RejectionSpy: EventInterceptor {
    let rejected: CoreRecorder<String>

    init(_ rejected: CoreRecorder<String>) { self.rejected = rejected }

    func didReject(_ dispatch: EventDispatchInfo) { rejected.append(dispatch.eventType) }
}
