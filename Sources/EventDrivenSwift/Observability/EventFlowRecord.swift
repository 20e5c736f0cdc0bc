// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// One thing an ``EventFlowRecorder`` saw.
public enum EventFlowRecord: Sendable {
    /// An event was dispatched.
    case dispatch(Dispatch)
    /// A delivery ended: its handler ran, or the bus decided not to run it.
    case delivery(Delivery)
    /// An event found no receiver.
    case unreceived(Dispatch)

    /// A dispatch, as recorded.
    public struct Dispatch: Sendable, Hashable {
        /// The dispatch's number on its bus (``EventDispatchInfo/dispatchID``).
        public let dispatchID: UInt64
        /// The bus's label.
        public let busLabel: String
        /// The event's type name.
        public let eventType: String
        /// When it was dispatched, on the `DispatchTime` clock in nanoseconds.
        public let timeNanoseconds: UInt64
        /// Its priority and method.
        public let priority: EventPriority
        /// Whether it was queued or stacked.
        public let method: EventDispatchMethod
        /// Where it came from: the producer of a topology.
        public let source: EventSource
        /// The track of a trace the dispatch is drawn on: the receiver whose handler dispatched
        /// it, or the dispatching thread.
        public let track: String
        /// The bus's number in this process: ``dispatchID`` is unique only with it.
        let busID: UInt64
    }

    /// A delivery, as recorded.
    public struct Delivery: Sendable, Hashable {
        /// The number of the dispatch it comes from; `nil` if dispatched before recording began.
        public let dispatchID: UInt64?
        /// The bus's label.
        public let busLabel: String
        /// The event's type name.
        public let eventType: String
        /// Its priority.
        public let priority: EventPriority
        /// Whether it was queued or stacked.
        public let method: EventDispatchMethod
        /// Who received it; `nil` when a receiver dropped it without saying whose it was.
        public let receiver: EventReceiver?
        /// How it ended.
        public let outcome: EventDeliveryOutcome
        /// When the handler started (nanoseconds on the `DispatchTime` clock); `nil` if it did not run.
        public let startNanoseconds: UInt64?
        /// How long the handler ran, in nanoseconds; 0 if it did not run.
        public let durationNanoseconds: UInt64
        /// When the delivery ended (nanoseconds on the `DispatchTime` clock).
        public let endNanoseconds: UInt64
        /// The bus's number in this process: ``dispatchID`` is unique only with it.
        let busID: UInt64
    }
}

extension EventFlowRecord {
    /// The number of the bus the record comes from.
    var busID: UInt64 {
        switch self {
        case .dispatch(let dispatch), .unreceived(let dispatch): dispatch.busID
        case .delivery(let delivery): delivery.busID
        }
    }
}
