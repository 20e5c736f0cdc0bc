// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Views of a mailbox's state for tests, kept apart from the storage's own API.
extension _Mailbox {
    /// The control state's phase.
    var lifecycleForTesting: _MailboxState.Phase {
        state.phase
    }

    /// Producers waiting for space in a full blocking mailbox.
    var blockedProducersForTesting: Int {
        limit?.blockedProducers ?? 0
    }
}
