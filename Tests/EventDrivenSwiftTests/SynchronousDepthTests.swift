// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Synchronization
import Testing

/// Issue 13.11: a synchronous receiver that dispatches synchronously without end is stopped at
/// ``EventBus/maximumSynchronousDepth`` with a reported error, instead of overflowing the stack.
@Suite("R1/R2 (issue 13.11): synchronous re-dispatch is bounded, not a stack overflow")
struct SynchronousDepthTests {
    private struct Echo: Eventable { let level: Int }

    /// A consumer that answers every `Echo` with a deeper one, synchronously, forever.
    private final class EchoConsumer: EventConsumer {
        let bus: EventBus
        let levels = LockedValue(0)
        init(bus: EventBus) { self.bus = bus }
        var willConsume: [any Eventable.Type] { [Echo.self] }
        func consume(_ event: any Eventable) {
            guard let echo = event as? Echo else { return }
            levels.withLock { $0 = max($0, echo.level) }
            bus.dispatchNow(Echo(level: echo.level + 1))
        }
    }

    /// The errors a bus reported.
    private final class ErrorLog: Sendable {
        private let errors = LockedValue<[EventDrivenError]>([])
        init(_ bus: EventBus) { bus.setErrorHandler { [self] error in errors.withLock { $0.append(error) } } }
        var all: [EventDrivenError] { errors.withLock { $0 } }
    }

    private static func errors(of bus: EventBus) -> ErrorLog { ErrorLog(bus) }

    @Test("a consumer re-dispatching with dispatchNow stops at the limit: one failed dead letter, one error")
    func consumerChainEnds() async {
        let bus = EventBus(label: #function)
        let letters = bus.deadLetters()
        let errors = Self.errors(of: bus)
        let consumer = EchoConsumer(bus: bus)
        bus.register(consumer)
        bus.dispatchNow(Echo(level: 1))
        let limit = EventBus.maximumSynchronousDepth
        #expect(consumer.levels.withLock { $0 } == limit)
        #expect(bus.statistics.delivered == limit)
        #expect(bus.statistics.failed == 1)
        let reported = errors.all
        #expect(reported.count == 1)
        if let error = reported.first, error.code == .synchronousDepthExceeded, let type = error.eventType,
            let reportedLimit = error.limit
        {
            #expect(type.hasSuffix("Echo"))
            #expect(reportedLimit == limit)
        } else {
            Issue.record("expected synchronousDepthExceeded, got \(reported)")
        }
        await bus.shutdown()
        var failed: [Int] = []
        for await letter in letters where letter.reason == .failed { failed.append((letter.event as! Echo).level) }
        #expect(failed == [limit + 1])
    }

    @Test("a .synchronous listener re-dispatching stops at the limit, beside a queued listener that gets every level")
    func listenerChainEnds() async {
        let bus = EventBus(label: #function)
        let errors = Self.errors(of: bus)
        let ran = LockedValue(0)
        let queued = LockedValue(0)
        let synchronous = bus.listen(Echo.self, executeOn: .synchronous) { echo, _ in
            ran.withLock { $0 += 1 }
            bus.dispatchNow(Echo(level: echo.level + 1))
        }
        let queuedListener = bus.listen(Echo.self, executeOn: .listenerThread) { _, _ in queued.withLock { $0 += 1 } }
        bus.dispatchNow(Echo(level: 1))
        await bus.drain()
        let limit = EventBus.maximumSynchronousDepth
        #expect(ran.withLock { $0 } == limit)
        #expect(queued.withLock { $0 } == limit + 1, "deliveries that do not nest are not limited")
        #expect(bus.statistics.failed == 1)
        #expect(errors.all.count == 1)
        synchronous.cancel()
        queuedListener.cancel()
        await bus.shutdown()
    }

    @Test("a route of synchronous listeners only: every listener of the too-deep level is one failed outcome")
    func allSynchronousRoute() async {
        let bus = EventBus(label: #function)
        let errors = Self.errors(of: bus)
        let ran = LockedValue(0)
        let first = bus.listen(Echo.self, executeOn: .synchronous) { echo, _ in
            ran.withLock { $0 += 1 }
            bus.dispatchNow(Echo(level: echo.level + 1))
        }
        let second = bus.listen(Echo.self, executeOn: .synchronous) { _, _ in ran.withLock { $0 += 1 } }
        bus.dispatchNow(Echo(level: 1))
        let limit = EventBus.maximumSynchronousDepth
        #expect(ran.withLock { $0 } == 2 * limit)
        #expect(bus.statistics.delivered == 2 * limit)
        #expect(bus.statistics.failed == 2)
        #expect(errors.all.count == 2)
        first.cancel()
        second.cancel()
        await bus.shutdown()
    }
}
