// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A pool as a delivery target: the bus delivers each event of a type the pool's threads listen
/// to into the pool, whose balancer chooses the thread.
extension _EventPoolCore: _DeliveryTarget {
    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        accept(envelope, for: subscription)
    }

    var receiverKind: EventReceiverKind { .pool }
}
