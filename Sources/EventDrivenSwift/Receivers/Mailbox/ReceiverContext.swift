// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

internal import CEventDrivenSwiftShims

/// The serial receiver whose drain is running on the current thread, if any; it is what
/// `.requesterThread` resolves to when a listener is registered from inside an EventThread.
///
/// A thread-local word, not a task-local value: every drain runs on one thread from start to end
/// without suspending, and binding a task-local value allocates (two allocations per binding,
/// measured with `Benchmarks/tools/malloccount.c`), which a serial context's drain paid each time
/// it started. A task that a handler starts runs elsewhere, so it has no current receiver.
struct _ReceiverContext: Sendable {
    let mailbox: _Mailbox

    /// The receiver whose drain runs on this thread, or `nil`.
    static var current: _ReceiverContext? {
        guard let address = c_eds_receiver_mailbox_pointer().unsafelyUnwrapped.pointee else { return nil }
        // Unretained in the slot: the drain running on this thread holds its mailbox.
        return _ReceiverContext(mailbox: Unmanaged<_Mailbox>.fromOpaque(address).takeUnretainedValue())
    }

    /// Runs `body` with `mailbox` as this thread's current receiver, then puts back the one before.
    static func withCurrent<Result>(_ mailbox: _Mailbox, _ body: () throws -> Result) rethrows -> Result {
        let slot = c_eds_receiver_mailbox_pointer().unsafelyUnwrapped
        let previous = slot.pointee
        // Unretained: the caller holds `mailbox` until `body` returns.
        slot.pointee = Unmanaged.passUnretained(mailbox).toOpaque()
        defer { slot.pointee = previous }
        return try body()
    }
}
