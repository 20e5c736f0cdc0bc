// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import EventDrivenSwiftServiceLifecycle
import Logging
import ServiceLifecycle
import Testing

private struct Tick: Eventable {
    let number: Int
}

@Suite("EventBusService (swift-service-lifecycle)")
struct EventBusServiceTests {
    @Test("A graceful shutdown of the group handles what was dispatched, then shuts the bus down")
    func gracefulShutdownDrainsThenStops() async throws {
        let bus = EventBus(label: "service-graceful")
        let received = Counter()
        bus.listen(Tick.self, executeOn: .listenerThread) { _, _ in received.increment() }
        let group = ServiceGroup(
            services: [EventBusService(bus: bus)], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for number in 0..<1_000 { bus.queue(Tick(number: number)) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(bus.isShutDown)
        #expect(received.value == 1_000)
        #expect(bus.statistics.delivered == 1_000)
        #expect(bus.statistics.discarded == 0)
    }

    @Test("Cancelling the service's task shuts the bus down at once")
    func cancellationStopsImmediately() async throws {
        let bus = EventBus(label: "service-cancel")
        let service = EventBusService(bus: bus)
        let task = Task { try await service.run() }
        task.cancel()
        try await task.value
        #expect(bus.isShutDown)
    }
}

/// A count shared with handlers on other threads.
private final class Counter: Sendable {
    private let count = LockedValue(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
