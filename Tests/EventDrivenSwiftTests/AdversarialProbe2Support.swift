// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

// Second black-box probe: scheduled dispatch, consumers, latest-only in batches, streams'
// buffers, interceptors, tryDispatch and dead letters, through the public API only.

struct P2Tick: Eventable { let n: Int }
struct P2Outer: Eventable { let n: Int }
struct P2Inner: Eventable { let n: Int }
struct P2Block: Eventable {}
struct P2Other: Eventable { let n: Int }

/// A bounded `.failDispatch` receiver of capacity 1 whose callback blocks on event 0.
final class P2FailFull: EventThread, @unchecked Sendable {  // state is the thread-safe gate/counter
    override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 1, whenFull: .failDispatch) }
    let gate = CoreGate()
    let runs = CoreCounter()
    override func registerEventListeners() {
        addEventCallback(P2Inner.self) { [unowned self] (inner: P2Inner, _: EventMetadata) in
            if inner.n == 0 { gate.block() }
            runs.increment()
        }
    }
}

/// A consumer that records what it consumes, by a short description.
final class P2Consumer: EventConsumer, Sendable {
    let willConsume: [any Eventable.Type]
    let excludeList: [any Eventable.Type]
    let seen = CoreRecorder<String>()
    let onConsume: (@Sendable (P2Consumer, any Eventable) -> Void)?
    init(
        _ willConsume: [any Eventable.Type], excluding: [any Eventable.Type] = [],
        onConsume: (@Sendable (P2Consumer, any Eventable) -> Void)? = nil
    ) {
        self.willConsume = willConsume
        excludeList = excluding
        self.onConsume = onConsume
    }
    func consume(_ event: any Eventable) {
        switch event {
        case let tick as P2Tick: seen.append("tick\(tick.n)")
        case let other as P2Other: seen.append("other\(other.n)")
        case let notice as DidConsumeEvent: seen.append("notice(\(type(of: notice.event)))")
        default: seen.append("\(type(of: event))")
        }
        onConsume?(self, event)
    }
}

/// Counts `didDeliver` by outcome, and dispatches.
final class P2OutcomeInterceptor: EventInterceptor {
    let outcomes = LockedValue<[String: Int]>([:])
    let dispatches = CoreCounter()
    let wrapped = CoreCounter()
    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) { dispatches.increment() }
    func wrapHandler(for delivery: EventDeliveryInfo, _ handler: () throws -> Void) rethrows {
        wrapped.increment()
        try handler()
    }
    func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) {
        let key = result.error == nil ? "\(result.outcome)" : "failed"
        outcomes.withLock { $0[key, default: 0] += 1 }
    }
    var total: Int { outcomes.withLock { $0.values.reduce(0, +) } }
}

/// Removes itself from its bus in its first `didDispatch`, and counts what it sees afterwards.
final class P2SelfRemovingInterceptor: EventInterceptor {
    let handle = LockedValue<EventInterceptorHandle?>(nil)
    let dispatches = CoreCounter()
    let deliveries = CoreCounter()
    let wrapped = CoreCounter()
    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        dispatches.increment()
        handle.withLock { $0 }?.cancel()
    }
    func wrapHandler(for delivery: EventDeliveryInfo, _ handler: () throws -> Void) rethrows {
        wrapped.increment()
        try handler()
    }
    func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) { deliveries.increment() }
}

struct P2Failure: Error {}

/// Holds the first P2Tick dispatch inside didDispatch until its gate opens.
final class P2HoldingInterceptor: EventInterceptor {
    let gate = CoreGate()
    let held = Atomic<Bool>(false)
    func didDispatch(_ dispatch: EventDispatchInfo, context: inout ServiceContext) {
        if dispatch.eventType.contains("P2Tick"), !held.exchange(true, ordering: .acquiringAndReleasing) {
            gate.block()
        }
    }
}

/// Bounded capacity-1 receivers whose callback blocks on event 0.
class P2GatedInner: EventThread, @unchecked Sendable {  // state is the thread-safe gate
    let gate = CoreGate()
    override func registerEventListeners() {
        addEventCallback(P2Inner.self) { [unowned self] (inner: P2Inner, _: EventMetadata) in
            if inner.n == 0 { gate.block() }
        }
    }
}
final class P2BlockFull: P2GatedInner, @unchecked Sendable {
    override class var mailboxPolicy: EventMailboxPolicy {
        .bounded(capacity: 1, whenFull: .blockProducer(timeout: .milliseconds(20)))
    }
}
final class P2DropFull: P2GatedInner, @unchecked Sendable {
    override class var mailboxPolicy: EventMailboxPolicy { .bounded(capacity: 1, whenFull: .dropNewest) }
}

/// A consumer whose lists change after registration.
final class P2ChangingConsumer: EventConsumer, Sendable {
    let lists = LockedValue<([any Eventable.Type], [any Eventable.Type])>(([P2Tick.self], []))
    let seen = CoreRecorder<String>()
    var willConsume: [any Eventable.Type] { lists.withLock { $0.0 } }
    var excludeList: [any Eventable.Type] { lists.withLock { $0.1 } }
    func consume(_ event: any Eventable) {
        if let tick = event as? P2Tick { seen.append("tick\(tick.n)") }
        if let other = event as? P2Other { seen.append("other\(other.n)") }
    }
}

/// An owner whose methods are registered unapplied, 5.2-style.
final class P2MethodOwner: Sendable {
    let ticks = CoreRecorder<Int>()
    let others = CoreRecorder<Int>()
    func onTick(_ event: P2Tick, _ priority: EventPriority, _ dispatchTime: DispatchTime) { ticks.append(event.n) }
    func onOther(_ event: P2Other, _ priority: EventPriority, _ dispatchTime: DispatchTime) { others.append(event.n) }
}

struct P2Wide: Equatable, Sendable { var a, b, c, d: Int }

/// A @ThreadSafeSemaphore property, and a copy of its wrapper.
final class P2Box: @unchecked Sendable {  // state is the wrapper's lock-guarded storage
    @ThreadSafeSemaphore var value = P2Wide(a: 0, b: 0, c: 0, d: 0)
    var wrapperCopy: ThreadSafeSemaphore<P2Wide> { _value }
}

protocol P2ObserverProtocol: AnyObject { var name: String { get } }
final class P2Observer: P2ObserverProtocol {
    let name: String
    init(name: String) { self.name = name }
}
final class P2NotAnObserver {}

/// Fills a capacity-1 `.failDispatch` receiver: event 0 blocks its callback, event 1 waits.
func fullReceiver(on bus: EventBus) async -> P2FailFull {
    let full = P2FailFull(bus: bus)
    P2Inner(n: 0).queue(on: bus)
    await full.gate.waitUntilEntered()
    P2Inner(n: 1).queue(on: bus)
    return full
}

/// Holds the listener thread inside a P2Block handler until the gate opens.
func blockListenerThread(_ bus: EventBus) async -> (CoreGate, EventListenerHandle) {
    let gate = CoreGate()
    let handle = bus.listen(P2Block.self, executeOn: .listenerThread) { _, _ in gate.block() }
    P2Block().queue(on: bus)
    await gate.waitUntilEntered()
    return (gate, handle)
}
