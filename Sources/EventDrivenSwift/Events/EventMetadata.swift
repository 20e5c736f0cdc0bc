import Dispatch

/// Everything a receiver may want to know about how an event reached it.
public struct EventMetadata: Sendable, Equatable {
    /// The priority the event was dispatched with.
    public let priority: EventPriority
    /// Whether the event was queued or stacked.
    public let method: EventDispatchMethod
    /// When the event was dispatched; for a scheduled event, the time it was due.
    public let dispatchTime: DispatchTime
    /// For a scheduled event, when it was scheduled; `nil` otherwise.
    public let scheduledTime: DispatchTime?

    @usableFromInline
    init(priority: EventPriority, method: EventDispatchMethod, dispatchTime: DispatchTime, scheduledTime: DispatchTime?)
    {
        self.priority = priority
        self.method = method
        self.dispatchTime = dispatchTime
        self.scheduledTime = scheduledTime
    }

    /// How long ago the event was dispatched, in nanoseconds.
    public var age: UInt64 {
        let now = DispatchTime._eventNow.uptimeNanoseconds
        let then = dispatchTime.uptimeNanoseconds
        return now > then ? now - then : 0
    }
}
