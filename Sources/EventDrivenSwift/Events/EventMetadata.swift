// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// Everything a receiver may want to know about how an event reached it.
public struct EventMetadata: Sendable, Equatable {
    // Stored with the two times first and without an optional, so that the metadata takes 18
    // bytes and a mailbox entry one cache line and an eighth (see `_MailboxEntry`).

    /// When the event was dispatched; for a scheduled event, the time it was due.
    public let dispatchTime: DispatchTime
    /// ``scheduledTime``, or `DispatchTime.distantFuture` for none: a time read from the clock
    /// when an event was scheduled is never that.
    let storedScheduledTime: DispatchTime
    /// The priority the event was dispatched with.
    public let priority: EventPriority
    /// Whether the event was queued or stacked.
    public let method: EventDispatchMethod

    /// For a scheduled event, when it was scheduled; `nil` otherwise.
    public var scheduledTime: DispatchTime? {
        storedScheduledTime == .distantFuture ? nil : storedScheduledTime
    }

    @usableFromInline
    init(priority: EventPriority, method: EventDispatchMethod, dispatchTime: DispatchTime, scheduledTime: DispatchTime?)
    {
        self.dispatchTime = dispatchTime
        self.storedScheduledTime = scheduledTime ?? .distantFuture
        self.priority = priority
        self.method = method
    }

    /// How long ago the event was dispatched, in nanoseconds.
    public var age: UInt64 {
        let now = DispatchTime._eventNow.uptimeNanoseconds
        let then = dispatchTime.uptimeNanoseconds
        return now > then ? now - then : 0
    }
}
