// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import ServiceContextModule
import Synchronization

/// Keeps the last dispatches and deliveries of the buses it is added to, and shows them as a
/// trace that opens in Perfetto (ui.perfetto.dev) or chrome://tracing, and as a topology of who
/// sends what to whom. One recorder can serve several buses: each delivery's flow arrow starts
/// at its own bus's dispatch, though every bus numbers its dispatches from 1.
///
/// ```swift
/// let recorder = EventFlowRecorder()
/// bus.addInterceptor(recorder)
/// // … run …
/// try recorder.writeChromeTrace(to: URL(fileURLWithPath: "trace.json"))
/// print(recorder.topology().mermaid)
/// ```
///
/// Memory is bounded: the recorder keeps the last `capacity` records (a ring) and, for the
/// topology, one count per distinct producer, event type and receiver. Recording takes a short
/// lock per dispatch and per delivery, so it can stay on in production.
public final class EventFlowRecorder: EventInterceptor {
    private struct State {
        var ring: _FlowRing
        /// Per bus (``EventFlowRecord/Dispatch/busID``): a bus's topology shows only its own.
        var counts: [UInt64: _TopologyCounts] = [:]
    }

    private let state: LockedValue<State>
    private let buses = LockedValue<[_WeakBus]>([])

    /// Creates a recorder that keeps the last `capacity` dispatches and deliveries.
    /// - Precondition: `capacity` is positive.
    public init(capacity: Int = 100_000) {
        state = LockedValue(State(ring: _FlowRing(capacity: capacity)))
    }

    /// The records kept, oldest first.
    public var records: [EventFlowRecord] { state.withLock { $0.ring.records } }

    /// Forgets every record and count.
    public func reset() {
        state.withLock { state in
            state.ring.removeAll()
            state.counts = [:]
        }
    }

    // MARK: EventInterceptor

    /// Remembers `bus`, so that the topology shows its receivers that got nothing yet.
    public func attached(to bus: EventBus) {
        buses.withLock { $0.append(_WeakBus(bus: bus)) }
    }

    /// Forgets `bus`.
    public func detached(from bus: EventBus) {
        buses.withLock { $0.removeAll { $0.bus == nil || $0.bus === bus } }
    }

    /// Records the dispatch.
    public func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        add(.dispatch(Self.record(of: dispatch)))
    }

    /// Records an event that found no receiver.
    public func didFindNoReceiver(_ dispatch: EventDispatchInfo) {
        add(.unreceived(Self.record(of: dispatch)))
    }

    /// Records the delivery.
    public func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) {
        let duration = result.duration?._nonnegativeNanoseconds ?? 0
        let end = result.startNanoseconds.map { $0 + duration } ?? DispatchTime.now().uptimeNanoseconds
        add(
            .delivery(
                EventFlowRecord.Delivery(
                    dispatchID: delivery.dispatchID, busLabel: delivery.busLabel, eventType: delivery.eventType,
                    priority: delivery.metadata.priority, method: delivery.metadata.method,
                    receiver: delivery.receiver, outcome: result.outcome, startNanoseconds: result.startNanoseconds,
                    durationNanoseconds: duration,
                    endNanoseconds: end, busID: delivery.busID)))
    }

    private func add(_ record: EventFlowRecord) {
        state.withLock { state in
            state.ring.append(record)
            state.counts[record.busID, default: _TopologyCounts()].record(record)
        }
    }

    private static func record(of dispatch: EventDispatchInfo) -> EventFlowRecord.Dispatch {
        EventFlowRecord.Dispatch(
            dispatchID: dispatch.dispatchID, busLabel: dispatch.busLabel, eventType: dispatch.eventType,
            timeNanoseconds: dispatch.metadata.dispatchNanoseconds, priority: dispatch.metadata.priority,
            method: dispatch.metadata.method, source: dispatch.source,
            track: dispatch.source.component ?? (Thread.isMainThread ? "main thread" : "dispatching thread"),
            busID: dispatch.busID)
    }

    // MARK: Output

    /// The records kept, as Chrome Trace Event JSON (`{"traceEvents":[…]}`): a track per
    /// receiving thread or context, a slice per handler run, a flow arrow from each dispatch to
    /// each of its deliveries.
    public func chromeTrace() -> Data {
        _ChromeTrace(records: records).json()
    }

    /// Writes ``chromeTrace()`` to `url`.
    public func writeChromeTrace(to url: URL) throws {
        try chromeTrace().write(to: url)
    }

    /// The topology seen so far on every bus the recorder is added to: producers, event types
    /// and receivers with the number of events along each edge, plus the registered receivers
    /// of those buses that have received nothing yet. ``EventBus/topology()`` shows one bus's.
    public func topology() -> EventTopology {
        let counts = state.withLock { $0.counts.values.reduce(into: _TopologyCounts()) { $0.merge($1) } }
        let registered = buses.withLock { $0.compactMap(\.bus) }.flatMap { $0.registeredReceivers }
        return EventTopology(counts: counts, registered: registered)
    }

    /// ``topology()`` of `bus` alone: what was seen on it and its registered receivers.
    func topology(of bus: EventBus) -> EventTopology {
        let counts = state.withLock { $0.counts[bus.counters.observation.busID] } ?? _TopologyCounts()
        return EventTopology(counts: counts, registered: bus.registeredReceivers)
    }
}

/// A bus an ``EventFlowRecorder`` was added to, not kept alive by it.
private struct _WeakBus: Sendable {
    weak var bus: EventBus?
}
