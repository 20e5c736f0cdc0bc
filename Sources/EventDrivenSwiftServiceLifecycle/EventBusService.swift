// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Logging
import ServiceLifecycle

/// A swift-service-lifecycle `Service` that keeps a bus running until the service group shuts
/// down, then stops it: gracefully on a graceful shutdown (SIGTERM, SIGINT, or
/// `ServiceGroup.triggerGracefulShutdown()`), at once when its task is cancelled.
///
/// A graceful stop is `EventBus.shutdown(gracefullyWithin:)` with ``quietTimeout``: the bus
/// refuses dispatches from outside its handlers, lets its handlers' follow-ups through until it
/// is quiet, and shuts down; at the deadline the rest stops at once, every delivery not yet
/// started discarded, dead-lettered and counted, never lost silently. The service returns
/// within ``quietTimeout`` of the graceful shutdown reaching it, plus the time the handlers that
/// are running then take to return.
///
/// List it before the services that dispatch on the bus: a service group shuts its services
/// down in reverse order, so the producers stop first and the bus finishes what they sent.
/// `ServiceGroup(bus:producers:gracefulShutdownSignals:cancellationSignals:logger:)` makes that
/// order for you:
///
/// ```swift
/// let bus = EventBus(label: "orders", logger: logger)
/// let group = ServiceGroup(
///     bus: EventBusService(bus: bus, logger: logger), producers: [httpServer],
///     gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// A dispatch from outside the bus's handlers during the stop is the sign of the wrong order:
/// it is refused, counted in `EventBusStatistics.rejectedWhileStopping`, and
/// the first one is logged as a warning.
public struct EventBusService: Service {
    /// The bus the service runs.
    public let bus: EventBus
    /// The deadline of a graceful stop, from the graceful shutdown reaching the service: the bus
    /// finishes what it accepted within it, and stops the rest at once after it.
    public let quietTimeout: Duration
    /// Where the service logs its stop: how it ended, what was cut at the deadline, and what
    /// was refused from outside the bus's handlers.
    public let logger: Logger

    /// Creates a service for `bus`, logging through `logger`.
    /// - Parameters:
    ///   - bus: The bus to run and stop.
    ///   - quietTimeout: The deadline of a graceful stop.
    ///   - logger: Where the service logs its stop.
    public init(bus: EventBus, quietTimeout: Duration = .seconds(10), logger: Logger) {
        self.bus = bus
        self.quietTimeout = quietTimeout
        self.logger = logger
    }

    /// Creates a service for `bus` that logs through the bus's `EventBus.logger`.
    /// - Parameters:
    ///   - bus: The bus to run and stop.
    ///   - quietTimeout: The deadline of a graceful stop.
    public init(bus: EventBus, quietTimeout: Duration = .seconds(10)) {
        self.init(bus: bus, quietTimeout: quietTimeout, logger: bus.logger)
    }

    /// Returns once the bus has been shut down: after a graceful shutdown of the service group,
    /// gracefully within ``quietTimeout``; after cancellation, at once
    /// (`EventBus/shutdown(immediately:)` with `true`).
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: the group is going down fast.
            await bus.shutdown(immediately: true)
            return
        }
        logger.info(
            "Stopping the bus gracefully", metadata: ["bus": "\(bus.label)", "timeout": "\(quietTimeout)"])
        // Cancelled meanwhile (the group escalates), the stop cuts what is left at once.
        let cut = await bus.shutdown(gracefullyWithin: quietTimeout)
        let statistics = bus.statistics
        if let cut {
            logger.warning(
                "The bus was not quiet by the deadline; what was pending was discarded, dead-lettered and counted",
                metadata: [
                    "bus": "\(bus.label)", "timeout": "\(quietTimeout)",
                    "pending": "\(cut.pendingDeliveries)", "discarded": "\(statistics.discarded)",
                ])
        } else {
            logger.info(
                "The bus stopped gracefully: everything it accepted was handled", metadata: ["bus": "\(bus.label)"])
        }
        if statistics.rejectedWhileStopping > 0 {
            logger.warning(
                """
                The bus refused dispatches from outside its handlers while it stopped: list EventBusService \
                before the services that dispatch on it (ServiceGroup(bus:producers:))
                """,
                metadata: ["bus": "\(bus.label)", "refused": "\(statistics.rejectedWhileStopping)"])
        }
    }
}
