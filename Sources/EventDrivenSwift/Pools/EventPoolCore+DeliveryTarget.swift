/// A pool as a delivery target: the bus delivers each event of a type the pool's threads listen
/// to into the pool, whose balancer chooses the thread.
extension _EventPoolCore: _DeliveryTarget {
    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        accept({ envelope }, holdsInlineEvent: false, for: subscription)
    }

    var receiverKind: EventReceiverKind { .pool }
}

/// The pool's plan for a route whose one subscriber is an ``EventPool``: the event goes to the
/// pool without retaining anything, and each of the chosen thread's entries is built from a
/// fresh envelope, as a served route's are.
struct _PoolHandOff: Sendable {
    /// The only subscription, and the pool it forwards to, unretained: the dispatch holds the
    /// route, the route the subscription, the subscription the pool. Reaching the pool through
    /// the subscription's `target` instead would retain it per event, and a pool's reference
    /// count is slow to change once it is weakly referenced.
    private let subscription: Unmanaged<_Subscription>
    private let pool: Unmanaged<_EventPoolCore>

    /// The plan for `subscriptions` when it is one subscription of a pool; `nil` otherwise.
    init?(_ subscriptions: [_Subscription]) {
        guard subscriptions.count == 1, let pool = subscriptions[0].target as? _EventPoolCore else { return nil }
        self.subscription = .passUnretained(subscriptions[0])
        self.pool = .passUnretained(pool)
    }

    @inline(__always)
    func deliver(_ makeEnvelope: () -> _EventEnvelope, holdsInlineEvent: Bool) {
        subscription._withUnsafeGuaranteedRef { subscription in
            pool._withUnsafeGuaranteedRef {
                $0.accept(makeEnvelope, holdsInlineEvent: holdsInlineEvent, for: subscription)
            }
        }
    }
}
