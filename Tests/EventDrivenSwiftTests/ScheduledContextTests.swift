// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import ServiceContextModule
import Testing

private struct Reminder: Eventable {}

/// A request id carried in a `ServiceContext`.
private enum RequestID: ServiceContextKey {
    typealias Value = String
}

@Suite("Scheduled events carry their ServiceContext (issue 26, item 4; SPEC M4, S1)")
struct ScheduledContextTests {
    @Test("schedule(after:), scheduleQueue(at:) and EventBus.schedule(_:at:): the handler sees the scheduler's context")
    func scheduledEventsCarryTheirContext() async {
        let bus = EventBus(label: "schedule.context", propagatesServiceContext: true)
        let seen = CoreRecorder<String?>()
        let handled = DispatchSemaphore(value: 0)
        bus.listen(Reminder.self, executeOn: .listenerThread) { _, _ in
            seen.append(ServiceContext.current?[RequestID.self])
            handled.signal()
        }
        var context = ServiceContext.topLevel
        context[RequestID.self] = "request-1"
        ServiceContext.withValue(context) {
            Reminder().schedule(after: .milliseconds(1), on: bus)
            Reminder().scheduleQueue(at: .now(), on: bus)
            bus.schedule(Reminder(), at: .now(), method: .stack)
        }
        for _ in 0..<3 { await coreWait(handled) }
        #expect(seen.values == ["request-1", "request-1", "request-1"])
        await bus.shutdown()
    }

    @Test("an interceptor sees the scheduler's context at the scheduled dispatch")
    func interceptorSeesTheScheduledContext() async {
        let bus = EventBus(label: "schedule.context.interceptor")
        let dispatched = CoreRecorder<String?>()
        let handled = DispatchSemaphore(value: 0)
        bus.addInterceptor(ContextSpy(dispatched))
        bus.listen(Reminder.self, executeOn: .taskThread) { _, _ in handled.signal() }
        var context = ServiceContext.topLevel
        context[RequestID.self] = "request-2"
        ServiceContext.withValue(context) { _ = Reminder().schedule(after: .zero, on: bus) }
        await coreWait(handled)
        #expect(dispatched.values == ["request-2"])
        await bus.shutdown()
    }
}

/// Keeps the request id current at each dispatch.
private final class ContextSpy: EventInterceptor {
    let dispatched: CoreRecorder<String?>

    init(_ dispatched: CoreRecorder<String?>) { self.dispatched = dispatched }

    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        dispatched.append(context[RequestID.self])
    }
}
