import Dispatch

/// One dispatched event together with how it was dispatched; what mailboxes carry.
///
/// Visible to inlinable code so that the caller's module boxes its own event type.
@usableFromInline
struct _EventEnvelope: Sendable {
    let event: any Eventable
    let metadata: EventMetadata
    /// The event's place among the events of its type on its bus, for `.latestOnly`;
    /// 0 when no latest-only listener was registered at dispatch.
    var sequence: UInt64

    @usableFromInline
    init(event: any Eventable, metadata: EventMetadata, sequence: UInt64 = 0) {
        self.event = event
        self.metadata = metadata
        self.sequence = sequence
    }
}
