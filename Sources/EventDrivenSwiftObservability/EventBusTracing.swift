// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Tracing

/// Makes swift-distributed-tracing spans for a bus's events: an `EventInterceptor` to add to
/// each bus you want traced.
///
/// ```swift
/// bus.addInterceptor(EventBusTracing())      // InstrumentationSystem.tracer, as bootstrapped
/// ```
///
/// - `publish <EventType>`, of kind `.producer`, at each dispatch, a child of the context current
///   there; the event carries the span's context (`EventDeliveryInfo/serviceContext`).
/// - `process <EventType>`, of kind `.consumer`, around each handler run, a child of the producer
///   span, with the error recorded when a handler throws. Events its handler dispatches are
///   children of it.
///
/// Spans carry the attributes `messaging.system` (`eventdrivenswift`), `messaging.destination.name`
/// (the event type) and, for consumer spans, `eventdrivenswift.receiver` (its kind).
public struct EventBusTracing: EventInterceptor {
    private let tracer: any Tracer

    /// Creates the interceptor.
    /// - Parameter tracer: The tracer to make spans with; by default the one
    ///   `InstrumentationSystem` was bootstrapped with.
    public init(tracer: any Tracer = InstrumentationSystem.tracer) {
        self.tracer = tracer
    }

    /// Starts and ends the producer span, and gives the event its context.
    public func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        let span = tracer.startSpan("publish \(dispatch.eventType)", context: context, ofKind: .producer)
        span.attributes["messaging.system"] = "eventdrivenswift"
        span.attributes["messaging.destination.name"] = dispatch.eventType
        span.end()
        context = span.context
    }

    /// Runs the handler inside the consumer span.
    public func wrapHandler(for delivery: EventDeliveryInfo, _ handler: () throws -> Void) rethrows {
        try tracer.withSpan(
            "process \(delivery.eventType)", context: delivery.serviceContext ?? .topLevel, ofKind: .consumer
        ) { span in
            describe(span, delivery)
            try handler()
        }
    }

    /// Runs the async handler inside the consumer span.
    public func wrapAsyncHandler(for delivery: EventDeliveryInfo, _ handler: () async throws -> Void) async rethrows {
        try await tracer.withSpan(
            "process \(delivery.eventType)", context: delivery.serviceContext ?? .topLevel, ofKind: .consumer
        ) { span in
            describe(span, delivery)
            try await handler()
        }
    }

    private func describe(_ span: any Span, _ delivery: EventDeliveryInfo) {
        span.attributes["messaging.system"] = "eventdrivenswift"
        span.attributes["messaging.destination.name"] = delivery.eventType
        if let receiver = delivery.receiver { span.attributes["eventdrivenswift.receiver"] = receiver.kind.label }
    }
}
