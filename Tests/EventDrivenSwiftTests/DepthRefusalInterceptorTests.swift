// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import ServiceContextModule
import Testing

@testable import EventDrivenSwift

/// Counts the outcomes of the deliveries it is shown.
private final class OutcomeCounter: EventInterceptor {
    let outcomes = CoreRecorder<EventDeliveryOutcome>()

    func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) {
        outcomes.append(result.outcome)
    }
}

/// Issue 26 item 5: a synchronous delivery refused by `maximumSynchronousDepth` is counted failed
/// in statistics, and used to reach no interceptor (the dead-letter office leaves failures to the
/// handler's run, which never happened). Every outcome reaches interceptors once.
@Suite("Issue 26.5: depth-limit refusals reach interceptors")
struct DepthRefusalInterceptorTests {
    private struct Echo: Eventable { let level: Int }

    @Test("a .synchronous chain that hits the limit: interceptors see each delivery and the one refusal as failed")
    func refusalReachesInterceptors() async {
        let bus = EventBus(label: #function)
        let counter = OutcomeCounter()
        let handle = bus.addInterceptor(counter)
        let listener = bus.listen(Echo.self, executeOn: .synchronous) { echo, _ in
            bus.dispatchNow(Echo(level: echo.level + 1))
        }
        bus.dispatchNow(Echo(level: 1))
        let limit = EventBus.maximumSynchronousDepth
        let outcomes = counter.outcomes.values
        #expect(bus.statistics.delivered == limit)
        #expect(bus.statistics.failed == 1)
        #expect(outcomes.filter { $0 == .delivered }.count == limit)
        #expect(outcomes.filter { $0 == .failed }.count == 1, "the refusal, reported once")
        #expect(outcomes.count == limit + 1)
        listener.cancel()
        handle.cancel()
    }
}
