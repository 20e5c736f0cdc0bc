// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The errors EventDrivenSwift reports: thrown where an API throws, otherwise passed to the
/// bus's error handler and logged.
///
/// What went wrong is the error's ``code``; what it concerns is in the other properties, each
/// set for the codes that carry it (``eventType`` for most, ``event`` and ``underlyingError``
/// for ``Code/handlerFailed``…). It is a struct rather than an enum so that a later version can
/// add a code without breaking a `switch` in your code: switch over ``code`` with a `default`.
///
/// ```swift
/// bus.setErrorHandler { error in
///     switch error.code {
///     case .handlerFailed:
///         if let payment = error.event as? Payment, let declined = error.underlyingError as? PaymentError { … }
///     case .mailboxFull:
///         print("\(error.receiver ?? "?") is falling behind")
///     default:
///         print(error)
///     }
/// }
///
/// do {
///     try bus.tryDispatch(payment)
/// } catch let error as EventDrivenError where error.code == .mailboxFull {
///     …
/// }
/// ```
///
/// Two errors are equal (``==(_:_:)``) when they have the same code and the same values: the
/// strings and numbers, the metadata, the event's type (not the event) and the underlying error's
/// type and description (events and errors need not be `Equatable`).
public struct EventDrivenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public let code: Code
    /// The name of the event type (`String(reflecting:)`), or of the state or channel, concerned.
    public let eventType: String?
    /// The label of the bus concerned (``Code/busShutDown``, ``Code/synchronousDepthExceeded``).
    public let bus: String?
    /// Where the event was to be delivered, in words: an EventThread, the listener thread, a
    /// task… (``Code/handlerFailed``, ``Code/mailboxFull``, ``Code/synchronousDepthExceeded``).
    public let receiver: String?
    /// The EventThread concerned (``Code/threadCancelled``).
    public let thread: String?
    /// The API that was misused (``Code/catchAllSubscription``).
    public let api: String?
    /// The limit that was reached (``Code/synchronousDepthExceeded``: ``EventBus/maximumSynchronousDepth``).
    public let limit: Int?
    /// The `maximumAge` given, in nanoseconds (``Code/negativeMaximumAge``).
    public let maximumAge: Int64?
    /// The type a `.custom` filter was written for (``Code/customFilterEventType``).
    public let filterEventType: String?
    /// The event the handler was given (``Code/handlerFailed``).
    public let event: (any Eventable)?
    /// How the event was dispatched (``Code/handlerFailed``).
    public let metadata: EventMetadata?
    /// What the handler threw (``Code/handlerFailed``).
    public let underlyingError: (any Error)?

    init(
        _ code: Code, eventType: String? = nil, bus: String? = nil, receiver: String? = nil,
        thread: String? = nil, api: String? = nil, limit: Int? = nil, maximumAge: Int64? = nil,
        filterEventType: String? = nil, event: (any Eventable)? = nil, metadata: EventMetadata? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.eventType = eventType
        self.bus = bus
        self.receiver = receiver
        self.thread = thread
        self.api = api
        self.limit = limit
        self.maximumAge = maximumAge
        self.filterEventType = filterEventType
        self.event = event
        self.metadata = metadata
        self.underlyingError = underlyingError
    }

    /// A sentence saying what went wrong and what was done about it.
    public var description: String {
        let type = eventType ?? "an event"
        let receiver = receiver ?? "a receiver"
        let bus = bus ?? ""
        switch code.base {
        case .nilOwner:
            return "addListener for \(type) was given a nil owner; the listener was not registered"
        case .missingCustomFilter:
            return "addListener for \(type) asked for .custom interest without a customFilter; "
                + "the listener was not registered"
        case .customFilterIsolation:
            return "addListener for \(type) was given a customFilter isolated to an actor that the listener "
                + "does not run on (the filter runs where the listener does); the listener was not registered"
        case .customFilterEventType:
            return "addListener for \(type) was given a .custom filter for \(filterEventType ?? "another type"), "
                + "which would decline every event; the listener was not registered"
        case .negativeMaximumAge:
            return "addListener for \(type) was given a negative maximumAge (\(maximumAge ?? 0) ns); "
                + "the listener was not registered"
        case .busShutDown:
            return "\(type) was dispatched on bus '\(bus)' after it shut down; the event was not delivered"
        case .threadCancelled:
            return "a callback was added to \(thread ?? "an EventThread") after it was cancelled; it will never run"
        case .threadOfAnotherBus:
            return "a handler on bus '\(bus)' was asked to run on \(thread ?? "an EventThread"), "
                + "a thread of another bus; each bus runs its listeners on its own threads: nothing was registered"
        case .handlerFailed:
            let error = underlyingError.map { String(reflecting: $0) } ?? "an error"
            return "a handler for \(type) on \(receiver) threw \(error); other deliveries went on"
        case .mailboxFull:
            return "the mailbox of \(receiver) was full; \(type) was not delivered to it"
        case .catchAllSubscription:
            return "\(api ?? "a subscription") was asked for AllEvents, which only an EventConsumer's lists accept "
                + "(register(_:) a consumer whose willConsume is [AllEvents.self]); nothing was registered"
        case .synchronousDepthExceeded:
            return "\(type) on bus '\(bus)' was not delivered to \(receiver): synchronous deliveries already nested "
                + "\(limit ?? 0) deep on this thread (EventBus.maximumSynchronousDepth); it is a failed dead letter"
        }
    }

    /// Whether two errors report the same thing: the same ``code`` and the same values, where
    /// ``event`` is compared by its type (``eventType``) and ``underlyingError`` by its type and
    /// description (events and errors need not be `Equatable`).
    public static func == (lhs: EventDrivenError, rhs: EventDrivenError) -> Bool {
        lhs.code == rhs.code && lhs.eventType == rhs.eventType && lhs.bus == rhs.bus
            && lhs.receiver == rhs.receiver && lhs.thread == rhs.thread && lhs.api == rhs.api
            && lhs.limit == rhs.limit && lhs.maximumAge == rhs.maximumAge
            && lhs.filterEventType == rhs.filterEventType && lhs.metadata == rhs.metadata
            && lhs.underlyingIdentity == rhs.underlyingIdentity
    }

    /// Hashes what ``==(_:_:)`` compares (all of it but the metadata).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(eventType)
        hasher.combine(bus)
        hasher.combine(receiver)
        hasher.combine(thread)
        hasher.combine(api)
        hasher.combine(limit)
        hasher.combine(maximumAge)
        hasher.combine(filterEventType)
        hasher.combine(underlyingIdentity)
    }

    /// The underlying error's type and description, as ``==(_:_:)`` compares it.
    private var underlyingIdentity: [String]? {
        underlyingError.map { [String(reflecting: type(of: $0)), String(describing: $0)] }
    }
}

extension EventDrivenError {
    /// ``Code/nilOwner``: `addListener` for `eventType` was given a `nil` owner.
    public static func nilOwner(eventType: String) -> EventDrivenError {
        EventDrivenError(.nilOwner, eventType: eventType)
    }

    /// ``Code/missingCustomFilter``: `interestedIn: .custom` for `eventType` without a `customFilter`.
    public static func missingCustomFilter(eventType: String) -> EventDrivenError {
        EventDrivenError(.missingCustomFilter, eventType: eventType)
    }

    /// ``Code/customFilterIsolation``: the `customFilter` for `eventType` is isolated to an actor
    /// that the listener does not run on.
    public static func customFilterIsolation(eventType: String) -> EventDrivenError {
        EventDrivenError(.customFilterIsolation, eventType: eventType)
    }

    /// ``Code/customFilterEventType``: the `.custom` filter given to a listener for `eventType`
    /// takes `filterEventType`, which the listener's events are not.
    public static func customFilterEventType(eventType: String, filterEventType: String) -> EventDrivenError {
        EventDrivenError(.customFilterEventType, eventType: eventType, filterEventType: filterEventType)
    }

    /// ``Code/negativeMaximumAge``: `maximumAge` (in nanoseconds) for `eventType` was negative.
    public static func negativeMaximumAge(eventType: String, maximumAge: Int64) -> EventDrivenError {
        EventDrivenError(.negativeMaximumAge, eventType: eventType, maximumAge: maximumAge)
    }

    /// ``Code/busShutDown``: `eventType` was dispatched on the bus labelled `bus` after it shut down.
    public static func busShutDown(bus: String, eventType: String) -> EventDrivenError {
        EventDrivenError(.busShutDown, eventType: eventType, bus: bus)
    }

    /// ``Code/threadCancelled``: a handler was registered on `thread` after it was cancelled.
    public static func threadCancelled(thread: String) -> EventDrivenError {
        EventDrivenError(.threadCancelled, thread: thread)
    }

    /// ``Code/threadOfAnotherBus``: a handler on `bus` was asked to run on `thread`, which
    /// belongs to another bus.
    public static func threadOfAnotherBus(thread: String, bus: String) -> EventDrivenError {
        EventDrivenError(.threadOfAnotherBus, bus: bus, thread: thread)
    }

    /// ``Code/handlerFailed``: a handler running on `receiver` threw `error` for `event`, which
    /// was dispatched as `metadata` says. ``eventType`` is the event's type.
    public static func handlerFailed(
        event: any Eventable, metadata: EventMetadata, receiver: String, error: any Error
    ) -> EventDrivenError {
        EventDrivenError(
            .handlerFailed, eventType: String(reflecting: type(of: event)), receiver: receiver, event: event,
            metadata: metadata, underlyingError: error)
    }

    /// ``Code/mailboxFull``: the mailbox of `receiver` was full and refused `eventType`.
    public static func mailboxFull(receiver: String, eventType: String) -> EventDrivenError {
        EventDrivenError(.mailboxFull, eventType: eventType, receiver: receiver)
    }

    /// ``Code/catchAllSubscription``: `api` was asked for ``AllEvents``.
    public static func catchAllSubscription(api: String) -> EventDrivenError {
        EventDrivenError(.catchAllSubscription, api: api)
    }

    /// ``Code/synchronousDepthExceeded``: `eventType` on the bus labelled `bus` was not delivered
    /// to `receiver` because synchronous deliveries already nested `limit` deep on its thread.
    public static func synchronousDepthExceeded(
        bus: String, eventType: String, receiver: String, limit: Int
    ) -> EventDrivenError {
        EventDrivenError(.synchronousDepthExceeded, eventType: eventType, bus: bus, receiver: receiver, limit: limit)
    }
}
