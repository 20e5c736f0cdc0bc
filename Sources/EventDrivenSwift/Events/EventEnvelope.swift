// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import ServiceContextModule

/// One dispatched event together with how it was dispatched; what mailboxes carry.
///
/// Visible to inlinable code so that the caller's module boxes its own event type.
@usableFromInline
struct _EventEnvelope: Sendable {
    @usableFromInline let event: any Eventable
    @usableFromInline let metadata: EventMetadata
    /// What an observed dispatch adds (its number, the service context it carries); `nil` for
    /// a plain one. Kept here rather than in ``EventMetadata``, which stays plain data that
    /// every copy handed to a handler moves without reference counting.
    @usableFromInline let annotation: _DispatchAnnotation?
    // The sequence number's low 48 bits, in two fields that fit after the metadata (the
    // envelope takes 72 bytes with its annotation).
    @usableFromInline var sequenceHigh: UInt16
    @usableFromInline var sequenceLow: UInt32

    /// The bits of a sequence number an envelope keeps. Latest-only delivery compares numbers
    /// within these bits, which is exact unless 2⁴⁸ events of one type were dispatched between
    /// an event's dispatch and its delivery.
    static var sequenceMask: UInt64 { (1 << 48) - 1 }

    @usableFromInline
    init(event: any Eventable, metadata: EventMetadata, sequence: UInt64 = 0, annotation: _DispatchAnnotation? = nil) {
        self.event = event
        self.metadata = metadata
        self.annotation = annotation
        self.sequenceHigh = UInt16(truncatingIfNeeded: sequence >> 32)
        self.sequenceLow = UInt32(truncatingIfNeeded: sequence)
    }

    /// A copy of this envelope numbered `sequence` (see ``sequence``).
    func sequenced(_ sequence: UInt64) -> _EventEnvelope {
        var copy = self
        copy.sequence = sequence
        return copy
    }

    /// The event's place among the events of its type on its bus, for `.latestOnly` (its low
    /// 48 bits); 0 when no latest-only listener was registered at dispatch.
    var sequence: UInt64 {
        get { UInt64(sequenceHigh) << 32 | UInt64(sequenceLow) }
        set {
            sequenceHigh = UInt16(truncatingIfNeeded: newValue >> 32)
            sequenceLow = UInt32(truncatingIfNeeded: newValue)
        }
    }

    /// Whether this is the event numbered `sequence`, compared within the bits kept.
    func hasSequence(_ sequence: UInt64) -> Bool {
        self.sequence == sequence & Self.sequenceMask
    }
}

/// What an observed dispatch adds to its event: the dispatch's number and the service context
/// the event carries to its handlers.
@usableFromInline
final class _DispatchAnnotation: Sendable {
    /// The context interceptors see (``EventDeliveryInfo/serviceContext``).
    let serviceContext: ServiceContext?
    /// Whether the bus propagated service contexts when the event was dispatched: only then is
    /// ``serviceContext`` current around its handlers and handed over by streams
    /// (``EventBus/propagatesServiceContext``; an interceptor never changes it).
    let propagatesContext: Bool
    let dispatchID: UInt64?
    /// Where the dispatch was made, while the bus is observed: for reports that come later
    /// (no receiver, rejected after shutdown).
    let site: _DispatchSite?

    init(
        serviceContext: ServiceContext?, propagatesContext: Bool = true, dispatchID: UInt64? = nil,
        site: _DispatchSite? = nil
    ) {
        self.serviceContext = serviceContext
        self.propagatesContext = propagatesContext
        self.dispatchID = dispatchID
        self.site = site
    }

    /// The context the event's handlers run with: ``serviceContext`` if the bus propagated it.
    var handlerContext: ServiceContext? { propagatesContext ? serviceContext : nil }
}
