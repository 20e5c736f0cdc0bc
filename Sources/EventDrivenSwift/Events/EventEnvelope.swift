import Dispatch

/// One dispatched event together with how it was dispatched; what mailboxes carry.
struct _EventEnvelope: Sendable {
    let event: any Eventable
    let metadata: EventMetadata
    /// The event's place among the events of its type on its bus, for `.latestOnly`;
    /// 0 when no latest-only listener was registered at dispatch.
    var sequence: UInt64 = 0
}
