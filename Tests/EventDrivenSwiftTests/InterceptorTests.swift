// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import ServiceContextModule
import Testing

private struct Reading: Eventable {
    let value: Int
}

private struct Orphan: Eventable {}

private struct Boom: Error {}

/// A trace id carried in a `ServiceContext`.
private enum RequestID: ServiceContextKey {
    typealias Value = String
}

/// Keeps what it is shown.
private final class SpyInterceptor: EventInterceptor {
    let dispatches = CoreRecorder<EventDispatchInfo>()
    let deliveries = CoreRecorder<(EventDeliveryInfo, EventDeliveryResult)>()
    let unreceived = CoreRecorder<String>()
    let rejected = CoreRecorder<String>()
    let wrapped = CoreRecorder<String>()

    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        dispatches.append(dispatch)
    }
    func didReject(_ dispatch: EventDispatchInfo) {
        rejected.append("\(dispatch.eventType) at \(dispatch.source.fileID):\(dispatch.source.line)")
    }
    func didFindNoReceiver(_ dispatch: EventDispatchInfo) {
        unreceived.append("\(dispatch.eventType) at \(dispatch.source.fileID):\(dispatch.source.line)")
    }
    func wrapHandler(for delivery: EventDeliveryInfo, _ handler: () throws -> Void) rethrows {
        wrapped.append(delivery.receiver?.kind.label ?? "?")
        try handler()
    }
    func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) {
        deliveries.append((delivery, result))
    }

    func outcomes() -> [EventDeliveryOutcome] { deliveries.values.map(\.1.outcome) }
}

@Suite("Interceptors, service context, flow recorder and topology (SPEC M2, M3, M4)")
struct InterceptorTests {
    @Test("M2: an interceptor sees every dispatch with its call site and every delivery with its receiver")
    func seesDispatchAndDelivery() async throws {
        let bus = EventBus(label: "m2")
        let spy = SpyInterceptor()
        bus.addInterceptor(spy)
        bus.listen(Reading.self, executeOn: .listenerThread) { _, _ in }
        let line = #line + 1
        bus.queue(Reading(value: 1))
        await bus.drain()
        let dispatch = try #require(spy.dispatches.values.first)
        #expect(dispatch.eventType.hasSuffix("Reading"))
        #expect(dispatch.source.fileID == #fileID)
        #expect(dispatch.source.line == line)
        #expect(dispatch.busLabel == "m2")
        let (delivery, result) = try #require(spy.deliveries.values.first)
        #expect(delivery.dispatchID == dispatch.dispatchID)
        #expect(delivery.receiver?.kind == .listenerThread)
        #expect(result.outcome == .delivered)
        #expect(result.duration != nil)
        #expect(spy.wrapped.values == ["listener_thread"])
    }

    @Test("M2: a consumer's consumption is a delivery too: wrapped, reported with its type, context current")
    func consumersAreReported() async throws {
        final class Counter: EventConsumer {
            var willConsume: [any Eventable.Type] { [Reading.self] }
            let contexts = CoreRecorder<String>()
            func consume(_ event: any Eventable) { contexts.append(ServiceContext.current?[RequestID.self] ?? "none") }
        }
        let bus = EventBus(label: "m2-consumer")
        let spy = SpyInterceptor()
        bus.addInterceptor(spy)
        let counter = Counter()
        bus.register(counter)
        var context = ServiceContext.topLevel
        context[RequestID.self] = "r-7"
        ServiceContext.withValue(context) { bus.dispatchNow(Reading(value: 1)) }
        let (delivery, result) = try #require(spy.deliveries.values.first)
        #expect(spy.deliveries.values.count == 1)
        #expect(delivery.receiver?.kind == .synchronous)
        #expect(delivery.receiver?.owner == "Counter")
        #expect(result.outcome == .delivered && result.duration != nil)
        #expect(spy.wrapped.values == ["synchronous"])
        #expect(counter.contexts.values == ["r-7"])
        await bus.shutdown()
    }

    @Test("M2: each delivery is reported once, with its outcome, whatever it is")
    func everyOutcomeOnce() async throws {
        let bus = EventBus(label: "m2-outcomes")
        let spy = SpyInterceptor()
        bus.addInterceptor(spy)
        bus.listen(Reading.self, executeOn: .synchronous, interestedIn: .custom { (e: Reading, _) in e.value > 1 }) {
            _, _ in
        }
        bus.listen(Reading.self, executeOn: .synchronous) { (event: Reading, _) throws in
            if event.value == 3 { throw Boom() }
        }
        bus.queue(Reading(value: 1))
        bus.queue(Reading(value: 3))
        let orphanLine = #line + 1
        bus.queue(Orphan())
        await bus.drain()
        let outcomes = spy.outcomes()
        #expect(outcomes.filter { $0 == .filtered }.count == 1)
        #expect(outcomes.filter { $0 == .failed }.count == 1)
        #expect(outcomes.filter { $0 == .delivered }.count == 2)
        #expect(outcomes.count == 4)
        let failure = try #require(spy.deliveries.values.first { $0.1.outcome == .failed })
        #expect(failure.1.error is Boom)
        #expect(spy.unreceived.values.count == 1)
        #expect(spy.unreceived.values.first?.hasSuffix("Orphan at \(#fileID):\(orphanLine)") == true)
        await bus.shutdown()
        let lateLine = #line + 1
        bus.queue(Reading(value: 9))
        #expect(spy.rejected.values.count == 1)
        #expect(spy.rejected.values.first?.hasSuffix("Reading at \(#fileID):\(lateLine)") == true)
    }

    @Test("M2: a removed interceptor sees nothing more")
    func cancelRemoves() async {
        let bus = EventBus(label: "m2-cancel")
        let spy = SpyInterceptor()
        let handle = bus.addInterceptor(spy)
        bus.listen(Reading.self, executeOn: .synchronous) { _, _ in }
        bus.queue(Reading(value: 1))
        handle.cancel()
        bus.queue(Reading(value: 2))
        #expect(spy.dispatches.count == 1)
        #expect(bus.interceptors.isEmpty)
    }

    @Test(
        "M4: the ServiceContext current at dispatch is current around the handler, on every kind of receiver",
        arguments: [DeliveryContext.listenerThread, .taskThread, .synchronous, .requesterThread])
    func contextTravels(executeOn: DeliveryContext) async {
        let bus = EventBus(label: "m4", propagatesServiceContext: true)
        let seen = CoreRecorder<String?>()
        let done = DispatchSemaphore(value: 0)
        bus.listen(Reading.self, executeOn: executeOn) { _, _ in
            seen.append(ServiceContext.current?[RequestID.self])
            done.signal()
        }
        var requestContext = ServiceContext.topLevel
        requestContext[RequestID.self] = "request-42"
        let context = requestContext
        await coreOnPlainThread {
            ServiceContext.withValue(context) { bus.queue(Reading(value: 1)) }
        }
        await coreWait(done)
        #expect(seen.values == ["request-42"])
    }

    @Test("M4: async listeners run with the context; streams yield it with the event")
    func contextReachesAsyncListenersAndStreams() async throws {
        let bus = EventBus(label: "m4-async")
        bus.propagatesServiceContext = true
        let stream = bus.eventsWithContext(of: Reading.self)
        let seen = CoreRecorder<String?>()
        bus.listenAsync(Reading.self) { _ in seen.append(ServiceContext.current?[RequestID.self]) }
        var context = ServiceContext.topLevel
        context[RequestID.self] = "async-7"
        ServiceContext.withValue(context) { bus.queue(Reading(value: 1)) }
        for await (_, _, carried) in stream {
            #expect(carried?[RequestID.self] == "async-7")
            break
        }
        await bus.drain()
        #expect(seen.values == ["async-7"])
    }

    @Test("M4: a bus that does not propagate contexts (the default) leaves them out")
    func propagationIsOptIn() async {
        let bus = EventBus(label: "m4-off")
        let seen = CoreRecorder<String?>()
        bus.listen(Reading.self, executeOn: .listenerThread) { _, _ in
            seen.append(ServiceContext.current?[RequestID.self])
        }
        var context = ServiceContext.topLevel
        context[RequestID.self] = "not carried"
        ServiceContext.withValue(context) { bus.queue(Reading(value: 1)) }
        await bus.drain()
        #expect(seen.values == [nil])
    }

    @Test("M4: without a context, a handler keeps the one current where it runs")
    func noContextLeavesHandlerContextAlone() async {
        let bus = EventBus(label: "m4-none", propagatesServiceContext: true)
        let seen = CoreRecorder<String?>()
        bus.listen(Reading.self, executeOn: .synchronous) { _, _ in seen.append(ServiceContext.current?[RequestID.self])
        }
        bus.queue(Reading(value: 1))
        #expect(seen.values == [nil])
    }
}
