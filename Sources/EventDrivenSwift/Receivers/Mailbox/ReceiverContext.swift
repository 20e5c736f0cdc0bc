// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The serial receiver whose code is running on the current thread, if any; it is what
/// `.requesterThread` resolves to when a listener is registered from inside an EventThread.
struct _ReceiverContext: Sendable {
    let mailbox: _Mailbox

    @TaskLocal static var current: _ReceiverContext?
}
