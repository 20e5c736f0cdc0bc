// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import ServiceContextModule

/// One delivery of an event to one receiver, as an ``EventInterceptor`` sees it.
public struct EventDeliveryInfo: Sendable {
    /// The label of the bus.
    public let busLabel: String
    /// The event.
    public let event: any Eventable
    /// The event's type name, `String(reflecting:)` (worked out once per type).
    public let eventType: String
    /// How the event was dispatched.
    public let metadata: EventMetadata
    /// The number of the dispatch this delivery comes from (``EventDispatchInfo/dispatchID``),
    /// or `nil` when the event was dispatched before any interceptor was added.
    public let dispatchID: UInt64?
    /// The `ServiceContext` the event carries: current where it was dispatched (with the
    /// interceptors' changes, such as a producer span), and current while the handler runs.
    public let serviceContext: ServiceContext?
    /// Who receives it; `nil` when a receiver discarded or dropped the delivery without saying
    /// whose it was (a full or closed mailbox).
    public let receiver: EventReceiver?
    /// The consumer, for a consumer's consumption (the did-consume notice needs it).
    let consumer: (any EventConsumer)?
    /// The bus's number in this process (see ``_Observation/busID``).
    let busID: UInt64

    init(
        busLabel: String, busID: UInt64, event: any Eventable, eventType: String, metadata: EventMetadata,
        annotation: _DispatchAnnotation?, receiver: EventReceiver?, consumer: (any EventConsumer)? = nil
    ) {
        self.consumer = consumer
        self.busLabel = busLabel
        self.busID = busID
        self.event = event
        self.eventType = eventType
        self.metadata = metadata
        self.dispatchID = annotation?.dispatchID
        self.serviceContext = annotation?.serviceContext
        self.receiver = receiver
    }
}

/// How one delivery ended, with the handler's run time when it ran.
public struct EventDeliveryResult: Sendable {
    /// What happened to the delivery.
    public let outcome: EventDeliveryOutcome
    /// When the handler started, on the `DispatchTime` clock in nanoseconds; `nil` when it
    /// did not run.
    public let startNanoseconds: UInt64?
    /// How long the handler ran; `nil` when it did not run.
    public let duration: Duration?
    /// What the handler threw, for a ``EventDeliveryOutcome/failed`` delivery.
    public let error: (any Error)?

    /// Creates a result.
    public init(outcome: EventDeliveryOutcome, startNanoseconds: UInt64?, duration: Duration?, error: (any Error)?) {
        self.outcome = outcome
        self.startNanoseconds = startNanoseconds
        self.duration = duration
        self.error = error
    }
}

/// What happened to one delivery: the buckets of ``EventBusStatistics``.
public enum EventDeliveryOutcome: String, Sendable, Hashable, CaseIterable {
    /// The handler ran and returned.
    case delivered
    /// Older than the listener's `youngerThan` limit.
    case expired
    /// A newer event of the type was dispatched first (`latestOnly`).
    case superseded
    /// The listener's custom filter declined it.
    case filtered
    /// The listener's owner was freed.
    case ownerReleased = "owner_released"
    /// Removed before it ran: the listener was removed, or the receiver or bus stopped.
    case discarded
    /// A full bounded mailbox or stream buffer dropped it.
    case dropped
    /// The handler threw.
    case failed

    /// The label used for metrics: `delivered`, `owner_released`…
    public var label: String { rawValue }
}

/// A receiver of events: who a delivery goes to.
public struct EventReceiver: Sendable, Hashable, CustomStringConvertible {
    /// What kind of receiver it is.
    public let kind: EventReceiverKind
    /// Where its handler runs, in words, one per track of a trace: an EventThread's class name,
    /// `listener thread`, `main actor`, `actor Model`, `task`, `stream`…
    public let name: String
    /// The type of the listener's owner, for a listener registered with one (an EventThread's
    /// callbacks are owned by the thread); `nil` otherwise.
    public let owner: String?

    /// Creates a receiver description.
    public init(kind: EventReceiverKind, name: String, owner: String? = nil) {
        self.kind = kind
        self.name = name
        self.owner = owner
    }

    /// Who receives, for a topology: the owner's type if there is one, else ``name``.
    public var description: String { owner ?? name }
}

/// The kinds of receivers a bus delivers to.
public enum EventReceiverKind: String, Sendable, Hashable, CaseIterable {
    /// An ``EventThread``.
    case thread
    /// The bus's listener thread (`executeOn: .listenerThread`).
    case listenerThread = "listener_thread"
    /// A listener's requester context: an actor, a queue, or a serial context of its own.
    case requester
    /// A task of its own for every delivery (`.taskThread`).
    case task
    /// The main actor.
    case mainActor = "main_actor"
    /// The dispatching thread (`.synchronous`).
    case synchronous
    /// A thread of an ``EventPool``.
    case pool
    /// An ``EventStream`` (`events(of:)`).
    case stream
    /// An async listener's task (`listenAsync`).
    case async

    /// The label used for metrics: `thread`, `listener_thread`…
    public var label: String { rawValue }
}
