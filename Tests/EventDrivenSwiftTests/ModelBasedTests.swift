// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization
import Testing

/// Random sequences of operations, repeatable from a seed, run against a bus and against a small
/// reference model of the SPEC; every delivery is compared with what the model allows.
///
/// - `EDS_MODEL_SEQUENCES`: how many sequences (default 10,000; 1,000 under ThreadSanitizer).
/// - `EDS_MODEL_SEED`: the base seed (sequence `n` uses `seed + n`); a divergence names both.
/// - `EDS_MODEL_ONLY`: runs sequence `n` alone, to reproduce a divergence.
///
/// Operations: subscribe (synchronous, requester context, listener thread, task, async handler,
/// EventThread, owned listener), unsubscribe, owner release, thread stop (discarding or
/// draining), dispatch bursts (queue and stack, every priority) from 1–3 threads that may also
/// subscribe, unsubscribe or scale a pool concurrently, pools (round robin or keyed affinity,
/// scaled by a chosen target or by the dynamic scaler; see `ModelBased+PoolsAndStates.swift`),
/// state subscriptions (synchronous, requester, listener thread) and state sets, and drain.
/// Add a case to ``ModelOperation`` and a branch to ``ModelRun/perform(_:)`` for new features.
@Suite("R1/R6/D4/L2/L8/T4: model-based random testing")
struct ModelBasedTests {
    static let sequences = Stress.environment(
        "EDS_MODEL_SEQUENCES", default: Stress.isUnderThreadSanitizer ? 1_000 : 10_000)
    static let seed = UInt64(Stress.environment("EDS_MODEL_SEED", default: 20_260_101))
    static let chunks = 8

    @Test(
        "R1/R6/D4/L2/L8/T4: random operation sequences match the reference model",
        arguments: 0..<ModelBasedTests.chunks)
    func sequences(chunk: Int) async {
        var divergences: [String] = []
        var runs = 0
        var events = 0
        var deliveries = 0
        var coverage = ModelCoverage()
        let only = Stress.environment("EDS_MODEL_ONLY", default: -1)
        let indices =
            only >= 0 ? (chunk == 0 ? [only] : []) : Array(stride(from: chunk, to: Self.sequences, by: Self.chunks))
        for index in indices {
            let seed = Self.seed &+ UInt64(index)
            let run = ModelRun(seed: seed)
            if let divergence = await run.execute() {
                divergences.append("sequence \(index) (EDS_MODEL_SEED=\(Self.seed)): \(divergence)\n\(run.log)")
                break
            }
            runs += 1
            events += run.eventCount
            deliveries += run.deliveryCount
            coverage.add(run.coverage)
        }
        print(
            "model: chunk \(chunk) ran \(runs) sequences, \(events) events, \(deliveries) deliveries, "
                + "\(coverage), \(divergences.count) divergences")
        #expect(runs > 0 || only >= 0)
        #expect(divergences.isEmpty, "\(divergences.joined(separator: "\n"))")
    }
}

/// A small, fast, repeatable generator (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The event of the model: a global id in dispatch order per producer.
struct ModelEvent: Eventable {
    let id: Int
    let producer: Int
}

/// How a receiver gets its events.
enum ModelReceiverKind: CaseIterable {
    case synchronous, requester, listenerThread, task, asyncHandler, eventThread, owned, pool

    /// Whether the receiver runs one delivery at a time (so D4 applies); a pool's threads are
    /// checked one by one (see ``ModelRun/checkPool(_:index:)``).
    var isSerial: Bool { self != .task && self != .pool }
}

/// One step of a sequence.
enum ModelOperation {
    case subscribe(ModelReceiverKind)
    case unsubscribe(Int)
    case releaseOwner(Int)
    case stopThread(Int, draining: Bool)
    /// `events[p]` are the (method, priority) pairs producer `p` dispatches; `churn` optionally
    /// subscribes a new receiver or removes one from a producer thread, mid-burst.
    case burst(events: [[(EventDispatchMethod, EventPriority)]], churn: ModelChurn?)
    case drain
    /// Scales pool receiver `index`: to `target` threads with the test's scaler, or by one
    /// evaluation of the dynamic scaler.
    case scalePool(Int, target: Int)
    case subscribeState(ModelStateContext)
    /// Sets the sequence's state to each value in turn, from the driver.
    case setState([Int])
}

enum ModelChurn {
    case subscribe(ModelReceiverKind)
    case unsubscribe(Int)
    case scalePool(Int, target: Int)
    case setState([Int])
}

/// One receiver as the bus sees it, and what the model expects of it.
// @unchecked Sendable: model fields are touched only by the sequence's driver task; `received` is locked
final class ModelReceiver: @unchecked Sendable {
    let kind: ModelReceiverKind
    var handle: EventListenerHandle?
    var thread: EventThread?
    var owner: AnyObject?
    var isActive = true
    /// Events that must be delivered, that may be delivered, and that are pending since the last drain.
    var must = Set<Int>()
    var may = Set<Int>()
    var pending: [Int] = []
    var discardedByStop: Int?
    /// Its owner was released: its subscription stays in the route until a delivery notices.
    var isZombie = false
    /// For `.pool`: the pool, how it is scaled and balanced, and which thread handled each delivery.
    var pool: EventPool<ModelPoolWorker>?
    var scaling: ModelPoolScaling?
    var isAffinity = false
    let handledBy = LockedValue<[ObjectIdentifier]>([])
    let received = LockedValue<[(id: Int, producer: Int, method: EventDispatchMethod, priority: EventPriority)]>([])

    init(kind: ModelReceiverKind) { self.kind = kind }

    func record(_ event: ModelEvent, _ metadata: EventMetadata) {
        received.withLock { $0.append((event.id, event.producer, metadata.method, metadata.priority)) }
    }

    /// For async handlers, which receive the event alone.
    func record(_ event: ModelEvent) {
        received.withLock { $0.append((event.id, event.producer, .queue, .normal)) }
    }
}

/// One sequence: generates operations from its seed, performs them, and checks the outcome.
final class ModelRun: @unchecked Sendable {  // used by one test task at a time
    var random: SeededGenerator
    let bus = EventBus(label: "model")
    var receivers: [ModelReceiver] = []
    /// The sequence's state: its changes so far (no two equal in a row) and its subscribers.
    let state = EventState<Int>(label: "model")
    var stateHistory: [Int] = []
    var stateSubscribers: [ModelStateSubscriber] = []
    /// A divergence noticed while the sequence runs (at a drain or a set).
    var early: String?
    var coverage = ModelCoverage()
    private var nextEventID = 0
    private var nextProducer = 0
    var pairs = 0
    var zombiePairs = 0
    var undelivered = 0
    private(set) var log: [String] = []
    var deliveryCount = 0
    var eventCount: Int { nextEventID }
    /// Every dead letter of the run, read once the bus has shut down.
    let letters: AsyncStream<DeadLetter>

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
        letters = bus.deadLetters()
    }

    func execute() async -> String? {
        let steps = Int.random(in: 4...14, using: &random)
        for _ in 0..<steps {
            let operation = generate()
            log.append("\(operation)")
            await perform(operation)
            if early != nil { break }
        }
        await perform(.drain)
        // `drain()` waits for the mailboxes of current subscriptions only: deliveries still
        // pending for a listener removed earlier are counted (as discarded) when its context
        // reaches them, which nothing announces.
        _ = await coreEventually {
            let stats = bus.statistics
            return stats.delivered + stats.discarded + stats.ownerReleased >= pairs
        }
        var divergence = early ?? check()
        for receiver in receivers {
            receiver.thread?.cancel()
            receiver.pool?.stop()
        }
        await bus.shutdown()
        if divergence == nil { divergence = await checkFinalAccounting() }
        // Each receiver holds its handle, whose handler holds the receiver: let go of both.
        for receiver in receivers {
            receiver.handle = nil
            receiver.thread = nil
            receiver.pool = nil
        }
        for subscriber in stateSubscribers { subscriber.subscription = nil }
        return divergence
    }

    var activeIndices: [Int] { receivers.indices.filter { receivers[$0].isActive } }

    private func randomKind() -> ModelReceiverKind {
        // EventThreads and pools cost a thread or more each: keep them rare.
        let kinds: [ModelReceiverKind] = [.synchronous, .requester, .listenerThread, .task, .asyncHandler, .owned]
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return .eventThread
        case 1: return .pool
        default: return kinds.randomElement(using: &random)!
        }
    }

    private func generate() -> ModelOperation {
        let active = activeIndices
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<20 where receivers.count < 8:
            return .subscribe(randomKind())
        case 20..<28 where !active.isEmpty:
            let index = active.randomElement(using: &random)!
            switch receivers[index].kind {
            case .eventThread, .pool: return .stopThread(index, draining: Bool.random(using: &random))
            case .owned: return .releaseOwner(index)
            default: return .unsubscribe(index)
            }
        case 28..<36:
            return .drain
        case 36..<46 where active.contains(where: { receivers[$0].kind == .pool }):
            return generatePoolScale(among: active)
        case 46..<54:
            return generateStateOperation()
        default:
            let producers = Int.random(in: 1...3, using: &random)
            let events = (0..<producers).map { _ in
                (0..<Int.random(in: 0...8, using: &random)).map { _ in
                    (
                        Bool.random(using: &random) ? EventDispatchMethod.queue : .stack,
                        EventPriority.allCases.randomElement(using: &random)!
                    )
                }
            }
            var churn: ModelChurn?
            let removable = active.filter { ![.eventThread, .owned, .pool].contains(receivers[$0].kind) }
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where receivers.count < 8:
                let kind = randomKind()
                churn = .subscribe(kind == .eventThread || kind == .pool ? .requester : kind)
            case 1 where !removable.isEmpty: churn = .unsubscribe(removable.randomElement(using: &random)!)
            case 2 where active.contains(where: { receivers[$0].kind == .pool }):
                if case .scalePool(let index, let target) = generatePoolScale(among: active) {
                    churn = .scalePool(index, target: target)
                }
            case 3:
                if case .setState(let values) = generateStateOperation() { churn = .setState(values) }
            default: churn = nil
            }
            return .burst(events: events, churn: churn)
        }
    }

    func subscribe(_ kind: ModelReceiverKind) -> ModelReceiver {
        let receiver = ModelReceiver(kind: kind)
        let bus = self.bus
        switch kind {
        case .synchronous:
            receiver.handle = bus.listen(ModelEvent.self, executeOn: .synchronous) { receiver.record($0, $1) }
        case .requester:
            receiver.handle = bus.listen(ModelEvent.self, executeOn: .requesterThread) { receiver.record($0, $1) }
        case .listenerThread:
            receiver.handle = bus.listen(ModelEvent.self, executeOn: .listenerThread) { receiver.record($0, $1) }
        case .task:
            receiver.handle = bus.listen(ModelEvent.self, executeOn: .taskThread) { receiver.record($0, $1) }
        case .asyncHandler:
            receiver.handle = bus.listenAsync(ModelEvent.self) { event in receiver.record(event) }
        case .eventThread:
            let thread = EventThread(bus: bus)
            receiver.thread = thread
            receiver.handle = thread.addEventCallback(ModelEvent.self) { (event: ModelEvent, metadata: EventMetadata) in
                receiver.record(event, metadata)
            }
        case .owned:
            final class Owner {}
            let owner = Owner()
            receiver.owner = owner
            receiver.handle = bus.listen(ModelEvent.self, owner: owner, executeOn: .listenerThread) {
                receiver.record($0, $1)
            }
        case .pool:
            makePool(receiver)
        }
        return receiver
    }

    private func deactivate(_ receiver: ModelReceiver) {
        receiver.isActive = false
        receiver.may.formUnion(receiver.pending)
        receiver.pending = []
    }

    private func perform(_ operation: ModelOperation) async {
        switch operation {
        case .subscribe(let kind):
            receivers.append(subscribe(kind))
        case .unsubscribe(let index):
            receivers[index].handle?.cancel()
            deactivate(receivers[index])
        case .releaseOwner(let index):
            receivers[index].owner = nil
            deactivate(receivers[index])
            receivers[index].isZombie = true
        case .stopThread(let index, let draining):
            let receiver = receivers[index]
            let discarded = receiver.thread?.cancel(draining: draining) ?? receiver.pool?.stop(draining: draining) ?? 0
            if draining {
                receiver.must.formUnion(receiver.pending)
                receiver.pending = []
                receiver.isActive = false
            } else {
                deactivate(receiver)
            }
            receiver.discardedByStop = discarded
        case .drain:
            await bus.drain()
            for receiver in receivers where receiver.isActive {
                receiver.must.formUnion(receiver.pending)
                receiver.pending = []
            }
            early = early ?? checkAfterDrain()
        case .scalePool(let index, let target):
            scale(receivers[index], to: target)
        case .subscribeState(let context):
            subscribeState(context)
        case .setState(let values):
            setState(values)
        case .burst(let events, let churn):
            await burst(events, churn: churn)
        }
    }

    private func burst(_ events: [[(EventDispatchMethod, EventPriority)]], churn: ModelChurn?) async {
        // Ids follow each producer's dispatch order.
        var ids: [[Int]] = []
        for producerEvents in events {
            ids.append(Array(nextEventID..<nextEventID + producerEvents.count))
            nextEventID += producerEvents.count
        }
        let producerBase = nextProducer
        nextProducer += events.count
        let eventIDs = ids
        let before = receivers.filter(\.isActive)
        let zombies = receivers.filter(\.isZombie).count
        let removed: ModelReceiver? = if case .unsubscribe(let index) = churn { receivers[index] } else { nil }
        let churnSlot = Int.random(in: 0...events[0].count, using: &random)
        let bus = self.bus
        let newcomer = LockedValue<ModelReceiver?>(nil)
        let change: @Sendable () -> Void = { [self] in
            removed?.handle?.cancel()
            if case .subscribe(let kind) = churn { newcomer.withLock { $0 = self.subscribe(kind) } }
            if case .scalePool(let index, let target) = churn {
                self.coverage.scalesDuringBursts += 1
                self.scale(self.receivers[index], to: target)
            }
            if case .setState(let values) = churn { self.setState(values) }
        }
        await coreOnThreads(events.count) { producer in
            for (position, (method, priority)) in events[producer].enumerated() {
                if producer == 0 && position == churnSlot { change() }
                bus.dispatch(
                    ModelEvent(id: eventIDs[producer][position], producer: producerBase + producer), method: method,
                    priority: priority)
            }
            if producer == 0 && churnSlot == events[0].count { change() }
        }
        let all = ids.flatMap { $0 }
        zombiePairs += zombies * all.count
        if let removed {
            // Removed concurrently: each event of the burst may or may not reach it.
            removed.may.formUnion(removed.pending)
            removed.may.formUnion(all)
            removed.pending = []
            removed.isActive = false
            zombiePairs += all.count
        }
        let added = newcomer.withLock { $0 }
        if let added {
            // Subscribed concurrently: the same.
            added.may.formUnion(all)
            receivers.append(added)
            zombiePairs += all.count
        }
        let settled = before.filter { $0 !== removed }
        for receiver in settled { receiver.pending.append(contentsOf: all) }
        pairs += settled.count * all.count
        if before.isEmpty && added == nil && zombies == 0 { undelivered += all.count }
    }
}
