// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import ServiceContextModule
import Testing

private struct Plain: Eventable {}

/// A request id carried in a `ServiceContext`.
private enum RequestID: ServiceContextKey {
    typealias Value = String
}

@Suite("With context propagation off, a handler sees what is current where it runs (issue 26, item 10; M4)")
struct ContextPropagationOffTests {
    @Test("none on the bus's threads; the dispatcher's on .synchronous and .taskThread, as documented")
    func whatEachReceiverSees() async {
        let bus = EventBus(label: "context.off")
        #expect(!bus.propagatesServiceContext)
        let seen = CoreRecorder<String>()
        let handled = DispatchSemaphore(value: 0)
        for (name, executeOn) in [
            ("synchronous", DeliveryContext.synchronous), ("taskThread", .taskThread),
            ("listenerThread", .listenerThread),
        ] {
            bus.listen(Plain.self, executeOn: executeOn) { _, _ in
                seen.append("\(name): \(ServiceContext.current?[RequestID.self] ?? "none")")
                handled.signal()
            }
        }
        var context = ServiceContext.topLevel
        context[RequestID.self] = "request-4"
        ServiceContext.withValue(context) { bus.queue(Plain()) }
        for _ in 0..<3 { await coreWait(handled) }
        #expect(
            Set(seen.values) == ["synchronous: request-4", "taskThread: request-4", "listenerThread: none"])
        await bus.shutdown()
    }
}
