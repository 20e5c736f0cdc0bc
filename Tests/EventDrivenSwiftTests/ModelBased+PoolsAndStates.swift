// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

// Pools and states in the model-based sequences of `ModelBasedTests.swift`.
//
// Pool model (P1–P4): each event dispatched while the pool is subscribed reaches exactly one of
// its threads, whatever the scaling meanwhile; each thread keeps D4 order; with the keyed
// affinity balancer (key: the producer) the pool as a whole keeps D4 order; after a drain every
// settled event has been handled; a stopped pool handled or discarded each event exactly once.
//
// State model (S1–S3): a subscriber first gets the current value (if any), then the changes in
// order; synchronous and listener-thread subscribers see every change, requester-thread ones a
// subsequence; never two equal values in a row; after a drain the last value seen is
// `bus.value(of:)`; `set` reports a change exactly when the value differs.

/// A pool thread that records each ``ModelEvent`` into the receiver it was built for.
// @unchecked Sendable: `receiver` is a constant set before the thread starts; records are locked
final class ModelPoolWorker: EventThread, @unchecked Sendable {
    /// The receiver the threads built in this scope record into (pools build threads on the
    /// caller's thread, in `init` and `evaluateScaling`).
    @TaskLocal static var building: ModelReceiver?
    private let receiver: ModelReceiver?

    required init(bus: EventBus) {
        receiver = Self.building
        super.init(bus: bus)
    }

    override func registerEventListeners() {
        let receiver = receiver
        let thread = ObjectIdentifier(self)
        addEventCallback(ModelEvent.self) { (event: ModelEvent, metadata: EventMetadata) in
            receiver?.received.withLock { received in
                received.append((event.id, event.producer, metadata.method, metadata.priority))
                receiver?.handledBy.withLock { $0.append(thread) }
            }
        }
    }
}

/// How often the sequences used pools and states, to show the operations are exercised.
struct ModelCoverage: CustomStringConvertible {
    var pools = 0
    var scales = 0
    var scalesDuringBursts = 0
    var stateSubscribers = 0
    var stateSets = 0

    mutating func add(_ other: ModelCoverage) {
        pools += other.pools
        scales += other.scales
        scalesDuringBursts += other.scalesDuringBursts
        stateSubscribers += other.stateSubscribers
        stateSets += other.stateSets
    }

    var description: String {
        "\(pools) pools, \(scales) pool scales (\(scalesDuringBursts) during bursts), "
            + "\(stateSubscribers) state subscribers, \(stateSets) state sets"
    }
}

/// How a model pool is scaled.
enum ModelPoolScaling {
    /// The test's scaler: the pool runs `target` threads after each evaluation.
    case chosen(ModelScaleTarget)
    /// ``EventPoolDynamicScaler`` (1…4 threads, zero window and idle timeout), evaluated at
    /// synthetic times one second apart.
    case dynamic(clock: LockedValue<UInt64>)
}

/// The thread count the test's scaler returns.
final class ModelScaleTarget: Sendable {
    let value = LockedValue<Int>(1)
}

/// A scaler that returns the target the sequence chose.
struct ModelChosenScaler: EventPoolScaling {
    let target: ModelScaleTarget
    var evaluationInterval: Duration? { nil }

    mutating func threadCount(for metrics: EventPoolMetrics, at now: DispatchTime) -> Int {
        target.value.withLock { $0 }
    }
}

/// Where a state subscriber runs.
enum ModelStateContext: CaseIterable {
    case synchronous, requester, listenerThread

    var context: DeliveryContext {
        switch self {
        case .synchronous: .synchronous
        case .requester: .requesterThread
        case .listenerThread: .listenerThread
        }
    }

    /// Whether it sees every change (a serial context, or the setter's own call).
    var seesEveryChange: Bool { self != .requester }
}

/// One subscriber of the sequence's state.
// @unchecked Sendable: `subscription` is touched only by the driver task; `seen` is locked
final class ModelStateSubscriber: @unchecked Sendable {
    let context: ModelStateContext
    /// The index in the state's history of the first value it must see (its current value).
    let start: Int
    let seen = LockedValue<[Int]>([])
    var subscription: ChannelSubscription?

    init(context: ModelStateContext, start: Int) {
        self.context = context
        self.start = start
    }
}

extension ModelRun {
    // MARK: Generating

    func generatePoolScale(among active: [Int]) -> ModelOperation {
        let pools = active.filter { receivers[$0].kind == .pool }
        return .scalePool(pools.randomElement(using: &random)!, target: Int.random(in: 1...4, using: &random))
    }

    func generateStateOperation() -> ModelOperation {
        if stateSubscribers.count < 3 && Int.random(in: 0..<3, using: &random) == 0 {
            return .subscribeState(ModelStateContext.allCases.randomElement(using: &random)!)
        }
        return .setState((0..<Int.random(in: 1...4, using: &random)).map { _ in Int.random(in: 0..<3, using: &random) })
    }

    // MARK: Pools

    /// Starts a pool of 1–3 threads, round robin or keyed by producer, chosen or dynamic scaling.
    func makePool(_ receiver: ModelReceiver) {
        let capacity = Int.random(in: 1...3, using: &random)
        let balancer: any EventPoolBalancing
        if Bool.random(using: &random) {
            receiver.isAffinity = true
            balancer = EventPoolKeyedAffinityBalancer { ($0 as? ModelEvent)?.producer ?? -1 }
        } else {
            balancer = EventPoolRoundRobinBalancer()
        }
        let scaler: any EventPoolScaling
        if Bool.random(using: &random) {
            let target = ModelScaleTarget()
            target.value.withLock { $0 = capacity }
            receiver.scaling = .chosen(target)
            scaler = ModelChosenScaler(target: target)
        } else {
            receiver.scaling = .dynamic(clock: LockedValue(1_000_000_000))
            scaler = EventPoolDynamicScaler(
                minimum: 1, maximum: 4, scaleUpThreshold: 1, window: .zero, idleTimeout: .zero,
                evaluationInterval: nil)
        }
        coverage.pools += 1
        let bus = self.bus
        receiver.pool = ModelPoolWorker.$building.withValue(receiver) {
            EventPool<ModelPoolWorker>(capacity: capacity, balancer: balancer, scaler: scaler, bus: bus)
        }
    }

    /// Scales the pool; with the chosen scaler it must then run exactly `target` threads.
    func scale(_ receiver: ModelReceiver, to target: Int) {
        guard let pool = receiver.pool, let scaling = receiver.scaling else { return }
        coverage.scales += 1
        switch scaling {
        case .chosen(let chosen):
            chosen.value.withLock { $0 = target }
            ModelPoolWorker.$building.withValue(receiver) { pool.evaluateScaling() }
            if pool.threadCount != target {
                early = early ?? "pool scaled to \(target) runs \(pool.threadCount) threads"
            }
        case .dynamic(let clock):
            let now = clock.withLock { now in
                now += 1_000_000_000
                return now
            }
            ModelPoolWorker.$building.withValue(receiver) {
                pool.evaluateScaling(now: DispatchTime(uptimeNanoseconds: now))
            }
            if !(1...4).contains(pool.threadCount) {
                early = early ?? "dynamic pool runs \(pool.threadCount) threads, outside 1…4"
            }
        }
    }

    /// P2/P3: D4 order per thread and, with keyed affinity, across the pool.
    func checkPool(_ receiver: ModelReceiver, index: Int) -> String? {
        let (received, threads) = receiver.received.withLock { ($0, receiver.handledBy.withLock { $0 }) }
        guard received.count == threads.count else { return "pool \(index) recorded deliveries without threads" }
        var perThread: [ObjectIdentifier: [Int: Int]] = [:]
        var perPool: [Int: Int] = [:]
        for (entry, thread) in zip(received, threads) where entry.method == .queue {
            let key = entry.producer * 8 + entry.priority.rawValue
            if let previous = perThread[thread]?[key], previous > entry.id {
                return "pool \(index) thread broke D4: \(entry.id) after \(previous)"
            }
            perThread[thread, default: [:]][key] = entry.id
            if receiver.isAffinity, let previous = perPool[key], previous > entry.id {
                return "keyed pool \(index) broke per-key order: \(entry.id) after \(previous)"
            }
            perPool[key] = entry.id
        }
        return nil
    }

    // MARK: States

    func subscribeState(_ context: ModelStateContext) {
        let subscriber = ModelStateSubscriber(context: context, start: max(0, stateHistory.count - 1))
        stateSubscribers.append(subscriber)
        coverage.stateSubscribers += 1
        subscriber.subscription = bus.subscribe(state, on: context.context) { (value: Int) in
            subscriber.seen.withLock { $0.append(value) }
        }
    }

    /// S3: `set` reports a change exactly when the value differs from the current one.
    func setState(_ values: [Int]) {
        for value in values {
            coverage.stateSets += 1
            let changes = stateHistory.last != value
            if changes { stateHistory.append(value) }
            let notified = bus.set(state, to: value)
            if notified != changes {
                early = early ?? "set(\(value)) returned \(notified) after \(stateHistory.suffix(3))"
                return
            }
        }
    }

    /// Deliveries the state subscribers saw.
    var stateDeliveries: Int { stateSubscribers.reduce(0) { $0 + $1.seen.withLock { $0.count } } }

    /// S1/S2: each subscriber saw its first value, then the changes in order.
    func checkStates() -> String? {
        for (index, subscriber) in stateSubscribers.enumerated() {
            let seen = subscriber.seen.withLock { $0 }
            let expected = Array(stateHistory[min(subscriber.start, stateHistory.count)...])
            let name = "state subscriber \(index) (\(subscriber.context))"
            if subscriber.context.seesEveryChange {
                if seen != expected { return "\(name) saw \(seen), expected \(expected)" }
            } else {
                if seen.first != expected.first {
                    return
                        "\(name) first saw \(seen.first.map(String.init) ?? "nothing"), expected \(expected.first.map(String.init) ?? "nothing")"
                }
                // A subsequence of the changes: never an older value after a newer one.
                var position = 0
                for value in seen {
                    guard let found = expected[position...].firstIndex(of: value) else {
                        return "\(name) saw \(seen), not in the order of \(expected)"
                    }
                    position = found + 1
                }
            }
            if let repeated = zip(seen, seen.dropFirst()).first(where: { $0 == $1 }) {
                return "\(name) saw \(repeated.0) twice in a row: \(seen)"
            }
            if seen.last != expected.last {
                return
                    "\(name) last saw \(seen.last.map(String.init) ?? "nothing"), the state is \(expected.last.map(String.init) ?? "unset")"
            }
        }
        return nil
    }

    /// After a drain: every pool handled what it had accepted, and every state subscriber's last
    /// value is the bus's current value.
    func checkAfterDrain() -> String? {
        for (index, receiver) in receivers.enumerated() where receiver.kind == .pool && receiver.isActive {
            let received = Set(receiver.received.withLock { $0.map(\.id) })
            if let missing = receiver.must.subtracting(received).first {
                return "pool \(index) had not handled event \(missing) when drain() returned"
            }
        }
        let current = bus.value(of: state)
        for (index, subscriber) in stateSubscribers.enumerated() {
            let last = subscriber.seen.withLock { $0.last }
            if last != current {
                return
                    "state subscriber \(index) (\(subscriber.context)) last saw \(last.map(String.init) ?? "nothing") "
                    + "after drain(), the state is \(current.map(String.init) ?? "unset")"
            }
        }
        return nil
    }
}
