/// One delivery waiting in a mailbox: an event for one subscription.
struct _MailboxEntry: Sendable {
    let envelope: _EventEnvelope
    let subscription: _Subscription
}
