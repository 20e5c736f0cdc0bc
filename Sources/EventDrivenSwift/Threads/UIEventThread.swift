// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// An ``EventThread`` whose callbacks always run on the main actor, one at a time, in order.
///
/// It has no thread of its own: its events are drained on the main queue, which must be
/// running (an app, `dispatchMain()`, or an async `main`). Called off the main queue,
/// ``EventThread/cancel(draining:)`` returns without waiting for the main queue: its count covers the events
/// still waiting, and any it skips from the batch in progress are counted in ``EventBus/statistics``.
///
/// Its ``EventThread/mailboxPolicy`` bounds its mailbox as an ``EventThread``'s; with
/// ``EventOverflowPolicy/blockProducer(timeout:)``, a producer on the main queue never waits
/// (the main queue could not make room while it waits): its event is accepted over capacity.
open class UIEventThread: EventThread, @unchecked Sendable {  // inherits EventThread's lock-guarded state
    /// Creates the receiver on `bus` and calls ``EventThread/registerEventListeners()``.
    public required init(bus: EventBus = EventCentral.shared) {
        super.init(mainActorBus: bus)
    }
}
