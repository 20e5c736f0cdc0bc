// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import EventDrivenSwiftObservability
import Foundation

/// What `EDS_BENCH_OBSERVE` asks to install on every bus of our contenders, to measure what
/// observability costs when it is on: `context` (service-context propagation only), `metrics`
/// (EventBusMetrics, with swift-metrics' default no-op factory), `tracing` (EventBusTracing with
/// the no-op tracer), `recorder` (an EventFlowRecorder). Unset: nothing, the default.
func instrument(_ bus: EventBus) {
    switch ProcessInfo.processInfo.environment["EDS_BENCH_OBSERVE"] {
    case "context": bus.propagatesServiceContext = true
    case "metrics": bus.addInterceptor(EventBusMetrics())
    case "tracing": bus.addInterceptor(EventBusTracing())
    case "recorder": bus.addInterceptor(EventFlowRecorder())
    default: break
    }
}
