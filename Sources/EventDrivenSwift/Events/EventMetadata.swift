import Dispatch
import ServiceContextModule

/// Everything a receiver may want to know about how an event reached it.
public struct EventMetadata: Sendable, Equatable {
    // Stored with the time first and the rare parts behind one optional reference, so that the
    // metadata takes 18 bytes and a mailbox entry one cache line and an eighth (see `_MailboxEntry`).

    /// When the event was dispatched; for a scheduled event, the time it was due.
    public let dispatchTime: DispatchTime
    /// What most events do without: a scheduled time, a service context, an observed dispatch's
    /// number. `nil` for a plain dispatch that nobody observes.
    @usableFromInline
    let extras: _EventMetadataExtras?
    /// The priority the event was dispatched with.
    public let priority: EventPriority
    /// Whether the event was queued or stacked.
    public let method: EventDispatchMethod

    /// For a scheduled event, when it was scheduled; `nil` otherwise.
    public var scheduledTime: DispatchTime? { extras?.scheduledTime }

    /// The `ServiceContext` that was current where the event was dispatched (with the producer
    /// span of a bus that traces, see ``EventInterceptor``); it is also `ServiceContext.current`
    /// while the event's handlers run. `nil` when none was.
    public var serviceContext: ServiceContext? { extras?.serviceContext }

    /// The number the bus gave this dispatch while interceptors observed it, which matches the
    /// dispatch to its deliveries (``EventDispatchInfo/dispatchID``); `nil` otherwise.
    public var dispatchID: UInt64? { extras?.dispatchID }

    @inlinable
    init(priority: EventPriority, method: EventDispatchMethod, dispatchTime: DispatchTime, scheduledTime: DispatchTime?)
    {
        self.dispatchTime = dispatchTime
        self.extras = scheduledTime.map { _EventMetadataExtras(scheduledTime: $0) }
        self.priority = priority
        self.method = method
    }

    @inlinable
    init(copying metadata: EventMetadata, extras: _EventMetadataExtras?) {
        self.dispatchTime = metadata.dispatchTime
        self.extras = extras
        self.priority = metadata.priority
        self.method = metadata.method
    }

    /// This metadata with what a dispatch added (`annotation`), keeping its scheduled time.
    @inlinable
    @inline(__always)
    func annotated(_ annotation: _EventMetadataExtras?) -> EventMetadata {
        guard let annotation else { return self }
        return EventMetadata(copying: self, extras: annotation.merging(scheduledTime: scheduledTime))
    }

    /// How long ago the event was dispatched, in nanoseconds.
    public var age: UInt64 {
        let now = DispatchTime._eventNow.uptimeNanoseconds
        let then = dispatchTime.uptimeNanoseconds
        return now > then ? now - then : 0
    }

    /// Equal when dispatched at the same time, with the same priority and method, scheduled at
    /// the same time and numbered alike; the service context is not compared.
    public static func == (lhs: EventMetadata, rhs: EventMetadata) -> Bool {
        lhs.dispatchTime == rhs.dispatchTime && lhs.priority == rhs.priority && lhs.method == rhs.method
            && lhs.scheduledTime == rhs.scheduledTime && lhs.dispatchID == rhs.dispatchID
    }
}

/// The rarely used parts of ``EventMetadata``, shared by every copy of it.
@usableFromInline
final class _EventMetadataExtras: Sendable {
    let scheduledTime: DispatchTime?
    let serviceContext: ServiceContext?
    let dispatchID: UInt64?

    @usableFromInline
    init(scheduledTime: DispatchTime? = nil, serviceContext: ServiceContext? = nil, dispatchID: UInt64? = nil) {
        self.scheduledTime = scheduledTime
        self.serviceContext = serviceContext
        self.dispatchID = dispatchID
    }

    /// These extras with `scheduledTime`, which a dispatch's annotation never has.
    @usableFromInline
    func merging(scheduledTime: DispatchTime?) -> _EventMetadataExtras {
        guard let scheduledTime else { return self }
        return _EventMetadataExtras(
            scheduledTime: scheduledTime, serviceContext: serviceContext, dispatchID: dispatchID)
    }
}
