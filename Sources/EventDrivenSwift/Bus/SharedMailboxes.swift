// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The mailboxes a bus creates for itself on first use.
struct _SharedMailboxes {
    var listenerThread: _Mailbox?
    var main: _Mailbox?
    /// Mailboxes whose subscriptions were removed while deliveries for them may still be queued.
    var detaching: [ObjectIdentifier: (mailbox: _Mailbox, count: Int)] = [:]
    /// Sinks whose subscriptions were removed while they still hold deliveries.
    var finishingSinks: [ObjectIdentifier: any _DrainableSink] = [:]

    var all: [_Mailbox] { [listenerThread, main].compactMap { $0 } }
}
