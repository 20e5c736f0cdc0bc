import Dispatch

/// What runs a mailbox's drains.
enum _MailboxExecutor: Sendable {
    /// A dedicated thread that parks while the mailbox is idle.
    case thread(_MailboxThread)
    /// Drains submitted to a dispatch queue, one at a time: the main queue, an
    /// `OperationQueue`'s underlying queue, or a global queue for a listener's own serial context.
    case queue(DispatchQueue)

    func wake(_ mailbox: _Mailbox) {
        switch self {
        case .thread(let thread):
            thread.wake()
        case .queue(let queue):
            // Like a mailbox thread, the drain names its mailbox as the current receiver, so a
            // `.requesterThread` listener registered from a handler delivers on this context.
            queue.async {
                _ReceiverContext.$current.withValue(_ReceiverContext(mailbox: mailbox)) { mailbox.runUntilIdle() }
            }
        }
    }
}
