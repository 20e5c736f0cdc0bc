/// A mailbox as a delivery target: a delivery is a node pushed onto the mailbox, which its
/// drainer runs one at a time, in D3 order.
extension _Mailbox: _DeliveryTarget {
    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        enqueue(envelope, for: subscription)
    }

    var receiverDescription: String { executor.receiverDescription }
    var receiverName: String { executor.receiverName }
    var receiverKind: EventReceiverKind { executor.receiverKind }
}
