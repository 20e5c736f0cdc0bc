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
