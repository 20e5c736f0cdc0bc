/// A mailbox as a delivery target: a delivery is an entry appended to the mailbox, which its
/// drainer runs one at a time, in D3 order. A route of unbounded mailboxes is served under the
/// registry lock instead (``_ServedMailboxes``).
extension _Mailbox: _DeliveryTarget {
    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        enqueue(envelope, for: .passUnretained(subscription))
    }

    var receiverDescription: String { executor.receiverDescription }
    var receiverName: String { executor.receiverName }
    var receiverKind: EventReceiverKind { executor.receiverKind }
}
