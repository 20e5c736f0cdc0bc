// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// Everything a receiver may want to know about how an event reached it.
public struct EventMetadata: Sendable, Equatable {
    // Stored as two clock readings in nanoseconds, without an optional: stamping an event is
    // then one clock read and two stores, with no call into Dispatch on the dispatching thread.
    // The `DispatchTime` values are made when a receiver asks for them.

    /// ``dispatchTime`` in uptime nanoseconds (`DispatchTime.uptimeNanoseconds`).
    @usableFromInline let dispatchNanoseconds: UInt64
    /// ``scheduledTime`` in uptime nanoseconds, or `UInt64.max` for none: a time read from the
    /// clock when an event was scheduled is never that.
    @usableFromInline let scheduledNanoseconds: UInt64
    /// The priority the event was dispatched with.
    public let priority: EventPriority
    /// Whether the event was queued or stacked.
    public let method: EventDispatchMethod

    /// When the event was dispatched; for a scheduled event, the time it was due.
    public var dispatchTime: DispatchTime { DispatchTime(uptimeNanoseconds: dispatchNanoseconds) }

    /// For a scheduled event, when it was scheduled; `nil` otherwise.
    public var scheduledTime: DispatchTime? {
        scheduledNanoseconds == .max ? nil : DispatchTime(uptimeNanoseconds: scheduledNanoseconds)
    }

    @usableFromInline
    init(priority: EventPriority, method: EventDispatchMethod, dispatchTime: DispatchTime, scheduledTime: DispatchTime?)
    {
        self.dispatchNanoseconds = dispatchTime.uptimeNanoseconds
        self.scheduledNanoseconds = scheduledTime?.uptimeNanoseconds ?? .max
        self.priority = priority
        self.method = method
    }

    /// How long ago the event was dispatched, in nanoseconds.
    public var age: UInt64 {
        let now = DispatchTime._eventNanoseconds
        let then = dispatchNanoseconds
        return now > then ? now - then : 0
    }
}
