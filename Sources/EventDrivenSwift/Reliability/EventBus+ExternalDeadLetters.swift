// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

extension EventBus {
    /// Posts a dead letter for an event that reached this process from outside the bus and will
    /// never be delivered: for example a message that a broker bridge received but gave up on,
    /// after its handlers failed too often or because its body could not be decoded.
    ///
    /// Observers of ``deadLetters(bufferingPolicy:)`` receive it with `reason` and metadata
    /// stamped now (queued, ``EventPriority/normal``). It is not counted in ``statistics``: it was
    /// never a dispatch of this bus, so the accounting identity (dispatched × subscribers =
    /// delivered + every other outcome) stays exact. Interceptors do not see it either. After
    /// ``shutdown(immediately:)`` the dead-letter streams have ended, and the call does nothing.
    ///
    /// - Parameters:
    ///   - event: The event, or a value describing the message when it could not be decoded.
    ///   - reason: Why it will not be delivered; ``DeadLetter/Reason/failed`` for a message that
    ///     was retried until its limit or could not be decoded.
    public func postDeadLetter(_ event: any Eventable, reason: DeadLetter.Reason) {
        let metadata = EventMetadata(
            priority: .normal, method: .queue, dispatchTime: DispatchTime._eventNow, scheduledTime: nil)
        counters.deadLetters.post(DeadLetter(event: event, metadata: metadata, reason: reason))
    }
}
