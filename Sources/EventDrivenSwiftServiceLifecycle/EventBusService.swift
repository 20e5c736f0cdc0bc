import EventDrivenSwift
import Logging
import ServiceLifecycle

/// A swift-service-lifecycle `Service` that keeps a bus running until the service group shuts
/// down, then stops it: gracefully on a graceful shutdown (SIGTERM, SIGINT, or
/// `ServiceGroup.triggerGracefulShutdown()`), at once when its task is cancelled.
///
/// A graceful stop waits until the bus is quiet (everything dispatched handled, including what
/// the handlers dispatched meanwhile) for at most `quietTimeout`, then calls
/// `EventBus.shutdown(immediately: false)`, which also stops the bus's EventThreads and pools.
/// Events still pending after the timeout are counted and posted as dead letters by that
/// shutdown, never lost silently.
///
/// ```swift
/// let bus = EventBus(label: "orders")
/// let group = ServiceGroup(
///     services: [EventBusService(bus: bus), httpServer],
///     gracefulShutdownSignals: [.sigterm],
///     logger: logger)
/// try await group.run()
/// ```
///
/// Put it before the services that dispatch on the bus: a service group shuts its services
/// down in reverse order, so the producers stop first and the bus drains what they sent.
public struct EventBusService: Service {
    /// The bus the service runs.
    public let bus: EventBus
    /// How long a graceful stop waits for the bus to become quiet before it shuts it down.
    public let quietTimeout: Duration

    /// Creates a service for `bus`.
    /// - Parameters:
    ///   - bus: The bus to run and stop.
    ///   - quietTimeout: How long a graceful stop waits for the bus to become quiet.
    public init(bus: EventBus, quietTimeout: Duration = .seconds(10)) {
        self.bus = bus
        self.quietTimeout = quietTimeout
    }

    /// Returns once the bus has been shut down: after a graceful shutdown of the service group,
    /// gracefully; after cancellation, at once (`EventBus/shutdown(immediately:)` with `true`).
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: the group is going down fast.
            await bus.shutdown(immediately: true)
            return
        }
        do {
            try await bus.waitUntilQuiet(timeout: quietTimeout)
        } catch {
            bus.logger.warning(
                "The bus was not quiet within the graceful shutdown's timeout; shutting it down",
                metadata: ["bus": "\(bus.label)", "pending": "\(error)"])
        }
        await bus.shutdown(immediately: false)
    }
}
