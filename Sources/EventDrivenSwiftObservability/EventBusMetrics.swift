// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import CoreMetrics
import Dispatch
import EventDrivenSwift
import Synchronization
import Tracing

/// Reports what a bus does through swift-metrics: an `EventInterceptor` to add to each bus
/// you want measured.
///
/// ```swift
/// let metrics = EventBusMetrics()            // MetricsSystem.factory, as bootstrapped
/// bus.addInterceptor(metrics)
/// ```
///
/// The metrics, with exactly these labels and dimensions (all bounded: no per-event values):
///
/// | Metric | Kind | Dimensions |
/// |---|---|---|
/// | `eventbus.events.dispatched` | Counter | `bus`, `event` |
/// | `eventbus.deliveries` | Counter | `bus`, `event`, `outcome` (`EventDeliveryOutcome/label`) |
/// | `eventbus.events.undelivered` | Counter | `bus`, `event` |
/// | `eventbus.events.rejected` | Counter | `bus` |
/// | `eventbus.handler.duration` | Timer | `bus`, `event`, `receiver` (`EventReceiverKind/label`) |
/// | `eventbus.mailbox.depth` | Gauge | `bus`, `receiver` |
///
/// `bus` is the bus's label and `event` the event type's `String(reflecting:)`. Each metric is
/// created once per dimension set and kept: threads that need a metric while the factory is
/// making it wait for that one. (A factory that, while making a metric, asks the bus for that
/// same metric gets another, made for that call, instead of waiting for itself.) The depth gauge is sampled every
/// `depthSamplingInterval` while the interceptor is on a bus, and once more when a depth falls
/// back to zero; `sampleMailboxDepths()` samples at once.
public final class EventBusMetrics: EventInterceptor {
    /// A metric's label and the values of its dimensions (their names follow from the label),
    /// so that finding a made metric allocates nothing.
    private struct Key: Hashable {
        let label: String
        let bus: String
        let event: String?
        let third: String?
    }

    private let factory: any MetricsFactory
    /// How often the mailbox depth gauge is sampled: the interval given to the initializer,
    /// kept between 1 ms (less would sample without pause) and `Int64.max` nanoseconds, about
    /// 292 years (`Task.sleep` traps beyond).
    public let depthSamplingInterval: Duration
    private let counters = LockedValue<[Key: _MadeOnce<Counter>]>([:])
    private let timers = LockedValue<[Key: _MadeOnce<CoreMetrics.Timer>]>([:])
    private let gauges = LockedValue<[Key: _MadeOnce<Gauge>]>([:])
    private let samplers = LockedValue<[ObjectIdentifier: _DepthSampler]>([:])

    /// Creates the interceptor.
    /// - Parameters:
    ///   - factory: Where the metrics are made; by default the one `MetricsSystem` was
    ///     bootstrapped with.
    ///   - depthSamplingInterval: How often the mailbox depth gauge is sampled; values below
    ///     1 ms count as 1 ms, values beyond `Int64.max` nanoseconds (about 292 years) as that.
    public init(factory: any MetricsFactory = MetricsSystem.factory, depthSamplingInterval: Duration = .seconds(1)) {
        self.factory = factory
        self.depthSamplingInterval = min(max(depthSamplingInterval, .milliseconds(1)), .nanoseconds(Int64.max))
    }

    // MARK: EventInterceptor

    /// Starts sampling `bus`'s mailbox depths.
    public func attached(to bus: EventBus) {
        let sampler = _DepthSampler(bus: bus, metrics: self)
        samplers.withLock { $0[ObjectIdentifier(bus)] = sampler }
        sampler.start(every: depthSamplingInterval)
    }

    /// Stops sampling `bus`.
    public func detached(from bus: EventBus) {
        samplers.withLock { $0.removeValue(forKey: ObjectIdentifier(bus)) }?.stop()
    }

    /// Counts the dispatch.
    public func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        counter("eventbus.events.dispatched", bus: dispatch.busLabel, event: dispatch.eventType).increment()
    }

    /// Counts a dispatch refused after shutdown.
    public func didReject(_ dispatch: EventDispatchInfo) {
        counter("eventbus.events.rejected", bus: dispatch.busLabel).increment()
    }

    /// Counts an event no one subscribed to.
    public func didFindNoReceiver(_ dispatch: EventDispatchInfo) {
        counter("eventbus.events.undelivered", bus: dispatch.busLabel, event: dispatch.eventType).increment()
    }

    /// Counts the delivery's outcome and times its handler.
    public func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) {
        counter(
            "eventbus.deliveries", bus: delivery.busLabel, event: delivery.eventType,
            ("outcome", result.outcome.label)
        ).increment()
        if let duration = result.duration, let receiver = delivery.receiver {
            let (seconds, attoseconds) = duration.components
            timer(
                "eventbus.handler.duration", bus: delivery.busLabel, event: delivery.eventType,
                ("receiver", receiver.kind.label)
            ).recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        }
    }

    /// Samples the mailbox depths of every bus the interceptor is on now, rather than at the
    /// next interval.
    public func sampleMailboxDepths() {
        for sampler in samplers.withLock({ Array($0.values) }) { sampler.sample() }
    }

    // MARK: Metrics, made once per dimension set

    func gauge(_ label: String, bus: String, _ third: (name: String, value: String)) -> Gauge {
        made(in: gauges, label, bus: bus, event: nil, third) { Gauge(label: label, dimensions: $0, factory: factory) }
    }

    private func counter(
        _ label: String, bus: String, event: String? = nil, _ third: (name: String, value: String)? = nil
    ) -> Counter {
        made(in: counters, label, bus: bus, event: event, third) {
            Counter(label: label, dimensions: $0, factory: factory)
        }
    }

    private func timer(
        _ label: String, bus: String, event: String, _ third: (name: String, value: String)
    ) -> CoreMetrics.Timer {
        made(in: timers, label, bus: bus, event: event, third) {
            CoreMetrics.Timer(label: label, dimensions: $0, factory: factory)
        }
    }

    /// The metric of `label` for these dimension values, made with its dimensions the first
    /// time (`bus`, then `event` if any, then `third` if any, in that order).
    ///
    /// Each metric is made once: the first thread to miss makes it, outside the cache's lock
    /// (the factory is the user's code); threads that miss meanwhile wait for it instead of
    /// making another, whose handler nothing would destroy.
    private func made<Metric: Sendable>(
        in cache: LockedValue<[Key: _MadeOnce<Metric>]>, _ label: String, bus: String, event: String?,
        _ third: (name: String, value: String)?, make: ([(String, String)]) -> Metric
    ) -> Metric {
        let key = Key(label: label, bus: bus, event: event, third: third?.value)
        let (cell, makes) = cache.withLock { cache -> (_MadeOnce<Metric>, Bool) in
            if let cell = cache[key] { return (cell, false) }
            let cell = _MadeOnce<Metric>()
            cache[key] = cell
            return (cell, true)
        }
        var dimensions: [(String, String)] {
            var dimensions = [("bus", bus)]
            if let event { dimensions.append(("event", event)) }
            if let third { dimensions.append((third.name, third.value)) }
            return dimensions
        }
        guard makes else {
            // A factory that asks for the metric it is making (through the bus it measures)
            // gets one of its own rather than waiting for itself.
            if !cell.isMade, _MetricsBeingMade.cells.contains(ObjectIdentifier(cell)) { return make(dimensions) }
            return cell.value
        }
        let made = _MetricsBeingMade.$cells.withValue(_MetricsBeingMade.cells.union([ObjectIdentifier(cell)])) {
            make(dimensions)
        }
        cell.fulfil(made)
        return made
    }
}

/// The metric cells (``_MadeOnce``) the current thread or task is making.
private enum _MetricsBeingMade {
    @TaskLocal static var cells: Set<ObjectIdentifier> = []
}

/// A metric that one thread makes and every thread reads, waiting until it is made.
private final class _MadeOnce<Metric: Sendable>: Sendable {
    private let metric = LockedValue<Metric?>(nil)
    private let ready = DispatchGroup()

    var isMade: Bool { metric.withLock { $0 != nil } }

    /// A cell whose maker has yet to call ``fulfil(_:)``.
    init() {
        ready.enter()
    }

    /// Stores the metric and wakes the readers waiting for it; called once, by the maker.
    func fulfil(_ made: Metric) {
        metric.withLock { $0 = made }
        ready.leave()
    }

    /// The metric, once made.
    var value: Metric {
        if let made = metric.withLock({ $0 }) { return made }
        ready.wait()
        return metric.withLock { $0 }!
    }
}

/// Samples one bus's mailbox depths into `eventbus.mailbox.depth` until stopped or the bus is freed.
final class _DepthSampler: Sendable {
    private weak let bus: EventBus?
    private weak let metrics: EventBusMetrics?
    /// The kinds last seen with a nonzero depth, so that a depth falling to zero is recorded once.
    private let lastNonzero = LockedValue<Set<EventReceiverKind>>([])
    private let task = LockedValue<Task<Void, Never>?>(nil)

    init(bus: EventBus, metrics: EventBusMetrics) {
        self.bus = bus
        self.metrics = metrics
    }

    func start(every interval: Duration) {
        let sampling = Task { [weak self] in
            while !Task.isCancelled {
                guard let self, self.bus != nil, !(self.bus?.isShutDown ?? true) else { return }
                self.sample()
                try? await Task.sleep(for: interval)
            }
        }
        task.withLock { $0 = sampling }
    }

    func stop() {
        task.withLock { $0 }?.cancel()
    }

    func sample() {
        guard let bus, let metrics else { return }
        let depths = bus.pendingDeliveries()
        let wereNonzero = lastNonzero.withLock { last in
            defer { last = Set(depths.keys) }
            return last
        }
        for kind in wereNonzero.union(depths.keys) {
            metrics.gauge("eventbus.mailbox.depth", bus: bus.label, ("receiver", kind.label))
                .record(depths[kind] ?? 0)
        }
    }
}
