// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A channel's message on its way through the bus: the event that mailboxes carry for a
/// channel subscriber.
@usableFromInline
struct _ChannelMessage<Message: Sendable>: Eventable {
    @usableFromInline let message: Message

    @inlinable
    init(message: Message) {
        self.message = message
    }
}
