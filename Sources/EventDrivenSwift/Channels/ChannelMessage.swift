/// A channel's message on its way through the bus: the event that mailboxes carry for a
/// channel subscriber.
struct _ChannelMessage<Message: Sendable>: Eventable {
    let message: Message
}
