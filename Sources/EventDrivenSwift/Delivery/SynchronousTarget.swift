/// The target of `.synchronous` subscriptions: the handler runs on the dispatching thread,
/// before the dispatch returns, nested at most ``EventBus/maximumSynchronousDepth`` deep.
final class _SynchronousTarget: _DeliveryTarget {
    /// The counters of the bus the subscriptions are on.
    let counters: _BusCounters

    init(counters: _BusCounters) {
        self.counters = counters
    }

    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        guard _SynchronousDepth.enter() else { return subscription.refuseTooDeep(envelope, counters: counters) }
        defer { _SynchronousDepth.leave() }
        counters.settle(subscription.deliver(envelope), envelope)
    }

    var receiverDescription: String { "the dispatching thread (.synchronous)" }
    var receiverName: String { "synchronous (dispatching thread)" }
    var receiverKind: EventReceiverKind { .synchronous }
    var usesLanes: Bool { false }
    var runsOnSender: Bool { true }
}

/// The synchronous target's plan for a route whose subscriptions are all synchronous: every
/// handler runs in registration order (stacked or queued alike) on one envelope, made in a slot
/// on the stack and delivered where it lies, as a mailbox runs its entries in place. An event
/// that ``_boxesInline(_:)`` reaches its handlers straight from its bytes and, carrying no
/// annotation, needs no destruction afterwards. The outcomes are counted once.
struct _SynchronousBatch: Sendable {
    /// The subscriptions, unretained: the dispatch holds the route, and the route holds them.
    let subscriptions: [Unmanaged<_Subscription>]
    /// Where the outcomes are counted: the bus's counters, which the targets hold.
    private let counters: _BusCounters

    /// The batch of `subscriptions` when every one is synchronous; `nil` otherwise.
    init?(_ subscriptions: [_Subscription]) {
        guard let first = subscriptions.first?.target as? _SynchronousTarget,
            subscriptions.allSatisfy({ $0.target is _SynchronousTarget })
        else { return nil }
        self.subscriptions = subscriptions.map { .passUnretained($0) }
        self.counters = first.counters
    }

    @inline(__always)
    func deliver(_ makeEnvelope: () -> _EventEnvelope, boxesInline: Bool) {
        withUnsafeTemporaryAllocation(of: _EventEnvelope.self, capacity: 1) { slot in
            let envelope = slot.baseAddress.unsafelyUnwrapped
            envelope.initialize(to: makeEnvelope())
            deliver(envelope)
            if !boxesInline || envelope.pointee.annotation != nil { envelope.deinitialize(count: 1) }
        }
    }

    private func deliver(_ envelope: UnsafePointer<_EventEnvelope>) {
        guard _SynchronousDepth.enter() else {
            for subscription in subscriptions {
                subscription._withUnsafeGuaranteedRef { $0.refuseTooDeep(envelope.pointee, counters: counters) }
            }
            return
        }
        defer { _SynchronousDepth.leave() }
        let eventBytes = UnsafeRawPointer(envelope) + _EventEnvelope.eventOffset
        if subscriptions.count == 1 {
            // One handler (the common case): one counter to add to, without a tally.
            let outcome = subscriptions[0]._withUnsafeGuaranteedRef { $0.deliver(envelope, eventBytes: eventBytes) }
            // The envelope is read only for an outcome other than delivered (not copied first).
            if outcome == .delivered {
                counters.delivered.add(1, ordering: .relaxed)
            } else {
                counters.settle(outcome, envelope.pointee)
            }
            return
        }
        var delivered = 0
        for subscription in subscriptions {
            let outcome = subscription._withUnsafeGuaranteedRef { $0.deliver(envelope, eventBytes: eventBytes) }
            if outcome == .delivered { delivered += 1 } else { counters.settle(outcome, envelope.pointee) }
        }
        if delivered > 0 { counters.delivered.add(delivered, ordering: .relaxed) }
    }
}
