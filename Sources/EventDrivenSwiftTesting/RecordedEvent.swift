// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

/// One event an ``EventRecorder`` recorded, with the metadata it was dispatched with.
public struct RecordedEvent<E: Eventable>: Sendable {
    /// The event.
    public let event: E
    /// Its priority, dispatch method and times, as every receiver sees them.
    public let metadata: EventMetadata

    /// A record of `event` with `metadata`.
    public init(event: E, metadata: EventMetadata) {
        self.event = event
        self.metadata = metadata
    }
}

extension RecordedEvent: Equatable where E: Equatable {}
