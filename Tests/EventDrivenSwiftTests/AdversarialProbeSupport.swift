// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

// Black-box adversarial probes: misuse and re-entrancy a user could write, through the public
// API only, each checked against the README's accounting identity where it applies.

struct AdvTick: Eventable { let n: Int }
struct AdvPing: Eventable { let depth: Int }
struct AdvPong: Eventable { let depth: Int }

/// An EventThread with no callbacks of its own: a `.thread(t)` context.
final class AdvHost: EventThread, @unchecked Sendable {}  // no state beyond EventThread's

/// An actor for `listen(_:on:)`.
actor AdvSink {
    var seen = 0
    func bump() { seen += 1 }
}

/// An owner with nothing in it.
final class AdvOwner: Sendable {}

/// Every way a listener can take its events.
enum AdvMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case synchronous, listenerThread, taskThread, requester, queue, thread, async, actor
    var testDescription: String { rawValue }
    /// One delivery at a time, in order, for one listener.
    var isSerial: Bool { self != .taskThread }
    /// Two listeners of this mode share one receiver that runs them in registration order.
    var sharesOneReceiver: Bool { self == .synchronous || self == .listenerThread || self == .thread }
    /// The context of a channel's or state's subscription in this mode (the requester's for
    /// `.requester`, `.async` and `.actor`).
    func subscriptionContext(host: AdvHost, queueLabel: String) -> DeliveryContext {
        switch self {
        case .synchronous: .synchronous
        case .listenerThread: .listenerThread
        case .taskThread: .taskThread
        case .thread: .thread(host)
        case .queue: .queue(DispatchQueue(label: queueLabel))
        default: .requesterThread
        }
    }
}

/// The contexts a mode needs, on one bus.
final class AdvPlace: Sendable {
    let bus: EventBus
    let host: AdvHost
    let queue = DispatchQueue(label: "adv-queue")
    let sink = AdvSink()

    init(_ bus: EventBus) {
        self.bus = bus
        host = AdvHost(bus: bus)
    }

    /// The context a listener of `mode` is registered with: this place's EventThread and queue,
    /// the requester's own for `.requester`, `.async` and `.actor`.
    func context(_ mode: AdvMode) -> DeliveryContext {
        switch mode {
        case .synchronous: .synchronous
        case .listenerThread: .listenerThread
        case .taskThread: .taskThread
        case .thread: .thread(host)
        case .queue: .queue(queue)
        default: .requesterThread
        }
    }

    @discardableResult
    func listen<E: Eventable>(
        _ type: E.Type, _ mode: AdvMode, _ body: @escaping @Sendable (E) -> Void
    ) -> EventListenerHandle {
        switch mode {
        case .synchronous: return bus.listen(type, executeOn: .synchronous) { event, _ in body(event) }
        case .listenerThread: return bus.listen(type, executeOn: .listenerThread) { event, _ in body(event) }
        case .taskThread: return bus.listen(type, executeOn: .taskThread) { event, _ in body(event) }
        case .requester: return bus.listen(type, executeOn: .requesterThread) { event, _ in body(event) }
        case .queue: return bus.listen(type, executeOn: .queue(queue)) { event, _ in body(event) }
        case .thread: return bus.listen(type, executeOn: .thread(host)) { event, _ in body(event) }
        case .async: return bus.listenAsync(type) { event in body(event) }
        case .actor: return bus.listen(type, on: sink) { _, event in body(event) }
        }
    }
}

/// A one-shot latch a handler opens and a test awaits (no sleeping).
final class AdvLatch: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func open() { semaphore.signal() }
    func wait() async { await coreWait(semaphore) }
}

/// Releases the listener's actor (its owner) from inside the interceptor's wrapper, before the
/// handler is called: the owner goes "while the delivery is being decided".
final class AdvReleasingInterceptor: EventInterceptor {
    let sinkBox: LockedValue<AdvSink?>
    let ownerBox: LockedValue<AdvOwner?>
    init(sinkBox: LockedValue<AdvSink?>, ownerBox: LockedValue<AdvOwner?>) {
        self.sinkBox = sinkBox
        self.ownerBox = ownerBox
    }
    func wrapHandler(for delivery: EventDeliveryInfo, _ handler: () throws -> Void) rethrows {
        ownerBox.withLock { $0 = nil }
        try handler()
    }
    func wrapAsyncHandler(for delivery: EventDeliveryInfo, _ handler: () async throws -> Void) async rethrows {
        sinkBox.withLock { $0 = nil }
        try await handler()
    }
}

/// Counts every dispatch and delivery it sees; adds frames around every handler.
final class AdvCountingInterceptor: EventInterceptor {
    let wrapped = CoreCounter()
    func wrapHandler(for delivery: EventDeliveryInfo, _ handler: () throws -> Void) rethrows {
        wrapped.increment()
        try handler()
    }
}

final class AdvNoRoomNegative: EventThread, @unchecked Sendable {  // no state of its own
    override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: -3, whenFull: .dropOldest) }
}

/// A bounded receiver of capacity 1 with two callbacks of its own; callback one blocks on
/// event 0 until the gate opens.
class AdvBounded: EventThread, @unchecked Sendable {  // state is the thread-safe gate and counters
    let gate = CoreGate()
    let first = CoreCounter()
    let second = CoreCounter()
    override func registerEventListeners() {
        addEventCallback(AdvTick.self) { [unowned self] (tick: AdvTick, _: EventMetadata) in
            if tick.n == 0 { gate.block() }
            first.increment()
        }
        addEventCallback(AdvTick.self) { [unowned self] (_: AdvTick, _: EventMetadata) in
            second.increment()
        }
    }
}
final class AdvDropNewest1: AdvBounded, @unchecked Sendable {
    override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 1, whenFull: .dropNewest) }
}
final class AdvDropOldest1: AdvBounded, @unchecked Sendable {
    override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 1, whenFull: .dropOldest) }
}
final class AdvFail1: AdvBounded, @unchecked Sendable {
    override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 1, whenFull: .failDispatch) }
}
final class AdvNoWait1: AdvBounded, @unchecked Sendable {
    override class var mailboxPolicy: EventMailboxPolicy {
        .bounded(capacity: 1, whenFull: .blockProducer(timeout: .zero))
    }
}
final class AdvBlock1: AdvBounded, @unchecked Sendable {
    override class var mailboxPolicy: EventMailboxPolicy {
        .bounded(capacity: 1, whenFull: .blockProducer(timeout: nil))
    }
}

/// A pool member that feeds its own pool a chain of hops.
final class AdvChainLink: EventThread, @unchecked Sendable {  // state is the static thread-safe recorder
    static let hops = LockedValue<[Int: [Int]]>([:])
    override func registerEventListeners() {
        addEventCallback(AdvPing.self) { [unowned self] (ping: AdvPing, _: EventMetadata) in
            Self.hops.withLock { $0[ObjectIdentifier(bus).hashValue, default: []].append(ping.depth) }
            if ping.depth < 200 { bus.queue(AdvPing(depth: ping.depth + 1)) }
        }
    }
}

/// A pool member whose callback cancels its own handle at its first event.
final class AdvSelfCancellingLink: EventThread, @unchecked Sendable {  // state is thread-safe
    static let runs = LockedValue<[String: Int]>([:])
    let handle = LockedValue<EventListenerHandle?>(nil)
    override func registerEventListeners() {
        let registered = addEventCallback(AdvTick.self) { [unowned self] (_: AdvTick, _: EventMetadata) in
            Self.runs.withLock { $0[bus.label, default: 0] += 1 }
            handle.withLock { $0 }?.cancel()
        }
        handle.withLock { $0 = registered }
    }
}

/// An EventThread whose callback blocks on event 0, for stopping it with work pending.
final class AdvStoppable: EventThread, @unchecked Sendable {  // state is the thread-safe gate/counter
    let gate = CoreGate()
    let runs = CoreCounter()
    override func registerEventListeners() {
        addEventCallback(AdvTick.self) { [unowned self] (tick: AdvTick, _: EventMetadata) in
            if tick.n == 0 { gate.block() }
            runs.increment()
        }
    }
}

/// A pool member that counts its events per bus.
final class AdvPoolWorker: EventThread, @unchecked Sendable {  // state is the static thread-safe map
    static let runs = LockedValue<[String: Int]>([:])
    override func registerEventListeners() {
        addEventCallback(AdvTick.self) { [unowned self] (_: AdvTick, _: EventMetadata) in
            Self.runs.withLock { $0[bus.label, default: 0] += 1 }
        }
    }
}

/// A consumer that, at its first event, registers itself again and a second consumer.
final class AdvConsumer: EventConsumer, Sendable {
    let bus: EventBus
    let seen = CoreRecorder<Int>()
    let other: AdvConsumer?
    init(bus: EventBus, other: AdvConsumer?) {
        self.bus = bus
        self.other = other
    }
    var willConsume: [any Eventable.Type] { [AdvTick.self] }
    func consume(_ event: any Eventable) {
        guard let tick = event as? AdvTick else { return }
        seen.append(tick.n)
        if tick.n == 0, let other {
            _ = bus.register(self)  // twice: still once per event
            _ = bus.register(other)
        }
    }
}

/// Adds a listener and another interceptor from inside its own `didDispatch`.
final class AdvRegisteringInterceptor: EventInterceptor {
    let bus: EventBus
    let added = CoreCounter()
    let extra = CoreCounter()
    init(bus: EventBus) { self.bus = bus }
    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        guard added.increment() <= 3 else { return }
        let extra = extra
        bus.listen(AdvPong.self, executeOn: .synchronous) { _, _ in extra.increment() }
        _ = bus.addInterceptor(AdvCountingInterceptor())
    }
}
