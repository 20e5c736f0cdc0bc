// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Logging
import ServiceLifecycle
import UnixSignals

extension ServiceGroupConfiguration {
    /// A configuration whose graceful shutdown stops `producers` before the bus they dispatch on.
    ///
    /// A service group shuts its services down in reverse order, each once the one after it has
    /// returned: listed first, `bus` stops last, after every producer has stopped dispatching,
    /// and finishes what they sent (``EventBusService``).
    /// - Parameters:
    ///   - bus: The service that runs the bus.
    ///   - producers: The services that dispatch on the bus (an HTTP server, a message bridge).
    ///   - gracefulShutdownSignals: The signals that lead to a graceful shutdown.
    ///   - cancellationSignals: The signals that lead to cancellation.
    ///   - logger: The group's logger.
    public init(
        bus: EventBusService, producers: [any Service], gracefulShutdownSignals: [UnixSignal] = [],
        cancellationSignals: [UnixSignal] = [], logger: Logger
    ) {
        self.init(
            services: [bus] + producers, gracefulShutdownSignals: gracefulShutdownSignals,
            cancellationSignals: cancellationSignals, logger: logger)
    }
}

extension ServiceGroup {
    /// A group whose graceful shutdown stops `producers` before the bus they dispatch on, so that
    /// the bus finishes everything they sent (see ``EventBusService``).
    ///
    /// ```swift
    /// let group = ServiceGroup(
    ///     bus: EventBusService(bus: bus, logger: logger), producers: [httpServer],
    ///     gracefulShutdownSignals: [.sigterm], logger: logger)
    /// ```
    /// - Parameters:
    ///   - bus: The service that runs the bus.
    ///   - producers: The services that dispatch on the bus.
    ///   - gracefulShutdownSignals: The signals that lead to a graceful shutdown.
    ///   - cancellationSignals: The signals that lead to cancellation.
    ///   - logger: The group's logger.
    public init(
        bus: EventBusService, producers: [any Service], gracefulShutdownSignals: [UnixSignal] = [],
        cancellationSignals: [UnixSignal] = [], logger: Logger
    ) {
        self.init(
            configuration: ServiceGroupConfiguration(
                bus: bus, producers: producers, gracefulShutdownSignals: gracefulShutdownSignals,
                cancellationSignals: cancellationSignals, logger: logger))
    }
}
