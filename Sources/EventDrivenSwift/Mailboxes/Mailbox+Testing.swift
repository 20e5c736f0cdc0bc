/// Views of a mailbox's state for tests, kept apart from the storage's own API.
extension _Mailbox {
    /// The state machine's lifecycle, read under the lock.
    var lifecycleForTesting: _MailboxStateMachine.Lifecycle {
        withStateForTesting { $0.lifecycle }
    }

    /// Producers waiting for space in a full blocking mailbox, read under the lock.
    var blockedProducersForTesting: Int {
        withStateForTesting { $0.blockedProducers }
    }
}
