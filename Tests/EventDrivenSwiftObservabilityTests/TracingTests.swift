// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import EventDrivenSwiftObservability
import InMemoryTracing
import Testing
import Tracing

private struct Job: Eventable {
    let id: Int
}

private struct FollowUp: Eventable {}

private struct Failure: Error {}

@Suite("Spans through swift-distributed-tracing (SPEC M4)")
struct TracingTests {
    @Test("M4: a producer span at dispatch, a consumer span around the handler, its child")
    func producerAndConsumerSpans() async throws {
        let tracer = InMemoryTracer()
        let bus = EventBus(label: "traced")
        bus.addInterceptor(EventBusTracing(tracer: tracer))
        bus.listen(Job.self, executeOn: .listenerThread) { _, _ in }
        bus.queue(Job(id: 1))
        await bus.drain()
        let spans = tracer.finishedSpans
        let name = String(reflecting: Job.self)
        let producer = try #require(spans.first { $0.operationName == "publish \(name)" })
        let consumer = try #require(spans.first { $0.operationName == "process \(name)" })
        #expect(producer.kind == .producer)
        #expect(consumer.kind == .consumer)
        #expect(consumer.spanContext.parentSpanID == producer.spanContext.spanID)
        #expect(consumer.spanContext.traceID == producer.spanContext.traceID)
    }

    @Test("M4: a span current at dispatch is the producer span's parent; a handler's dispatch continues the trace")
    func traceContinues() async throws {
        let tracer = InMemoryTracer()
        let bus = EventBus(label: "traced-chain")
        bus.addInterceptor(EventBusTracing(tracer: tracer))
        let done = DispatchSemaphore(value: 0)
        bus.listen(Job.self, executeOn: .taskThread) { _, _ in bus.queue(FollowUp()) }
        bus.listen(FollowUp.self, executeOn: .listenerThread) { _, _ in done.signal() }
        tracer.withSpan("request") { _ in bus.queue(Job(id: 1)) }
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "test-wait").async {  // not the global queue: Swift's tasks run there
                done.wait()
                continuation.resume()
            }
        }
        await bus.drain()
        let spans = tracer.finishedSpans
        let request = try #require(spans.first { $0.operationName == "request" })
        #expect(spans.allSatisfy { $0.spanContext.traceID == request.spanContext.traceID })
        let followUp = try #require(spans.first { $0.operationName == "process \(String(reflecting: FollowUp.self))" })
        let followUpPublish = try #require(
            spans.first { $0.operationName == "publish \(String(reflecting: FollowUp.self))" })
        let jobProcess = try #require(spans.first { $0.operationName == "process \(String(reflecting: Job.self))" })
        #expect(followUp.spanContext.parentSpanID == followUpPublish.spanContext.spanID)
        #expect(followUpPublish.spanContext.parentSpanID == jobProcess.spanContext.spanID)
    }

    @Test("M4: a throwing handler's error is recorded on its consumer span")
    func errorRecorded() async throws {
        let tracer = InMemoryTracer()
        let bus = EventBus(label: "traced-error")
        bus.addInterceptor(EventBusTracing(tracer: tracer))
        bus.listen(Job.self, executeOn: .synchronous) { (_: Job, _) throws in throw Failure() }
        bus.queue(Job(id: 1))
        let consumer = try #require(tracer.finishedSpans.first { $0.kind == .consumer })
        #expect(consumer.errors.count == 1)
        #expect(consumer.errors.first?.error is Failure)
    }

    @Test("M4: async handlers run inside their consumer span")
    func asyncHandlerSpan() async throws {
        let tracer = InMemoryTracer()
        let bus = EventBus(label: "traced-async")
        bus.addInterceptor(EventBusTracing(tracer: tracer))
        bus.listenAsync(Job.self) { _ in }
        bus.queue(Job(id: 1))
        await bus.drain()
        let consumer = try #require(tracer.finishedSpans.first { $0.kind == .consumer })
        #expect(consumer.operationName == "process \(String(reflecting: Job.self))")
    }
}
