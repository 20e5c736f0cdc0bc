// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The errors EventDrivenSwift reports: thrown where an API throws, otherwise passed to the
/// bus's error handler and logged.
public enum EventDrivenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `addListener` was given a `nil` owner; the listener was not registered.
    case nilOwner(eventType: String)
    /// `interestedIn: .custom` was given without a `customFilter`; the listener was not registered.
    case missingCustomFilter(eventType: String)
    /// `maximumAge` was negative; the listener was not registered.
    case negativeMaximumAge(eventType: String, maximumAge: Int64)
    /// An event was dispatched on a bus that has been shut down.
    case busShutDown(bus: String, eventType: String)
    /// A handler was registered on an EventThread that has been cancelled.
    case threadCancelled(thread: String)
    /// A handler threw `error` for `event`; other handlers and later deliveries were not
    /// affected. The delivery is counted in ``EventBusStatistics/failed`` and posted as a dead
    /// letter (``DeadLetter/Reason/failed``), so it can be retried.
    ///
    /// ```swift
    /// bus.setErrorHandler { error in
    ///     if case .handlerFailed(let event as Payment, _, _, let error as PaymentError) = error { … }
    /// }
    /// ```
    /// - Parameters:
    ///   - event: The event the handler was given.
    ///   - metadata: How the event was dispatched.
    ///   - receiver: Where the handler ran, in words (an EventThread, the listener thread, a task…).
    ///   - error: What the handler threw.
    case handlerFailed(event: any Eventable, metadata: EventMetadata, receiver: String, error: any Error)
    /// A bounded mailbox was full and its policy refused the event (or a blocked producer timed
    /// out); the event was not delivered to that receiver.
    case mailboxFull(receiver: String, eventType: String)
    /// A listener, callback or stream was asked for ``AllEvents``, which has no values and is
    /// never dispatched: it stands for every type only in an ``EventConsumer``'s lists. Nothing
    /// was registered; a stream ends at once.
    case catchAllSubscription(api: String)
    /// A synchronous delivery would have nested deeper than ``EventBus/maximumSynchronousDepth``
    /// on its thread (a synchronous receiver that keeps dispatching synchronously), so its
    /// handler did not run. It is counted in ``EventBusStatistics/failed`` and posted as a dead
    /// letter (``DeadLetter/Reason/failed``).
    case synchronousDepthExceeded(bus: String, eventType: String, receiver: String, limit: Int)

    /// A sentence saying what went wrong and what was done about it.
    public var description: String {
        switch self {
        case .nilOwner(let type):
            "addListener for \(type) was given a nil owner; the listener was not registered"
        case .missingCustomFilter(let type):
            "addListener for \(type) asked for .custom interest without a customFilter; the listener was not registered"
        case .negativeMaximumAge(let type, let age):
            "addListener for \(type) was given a negative maximumAge (\(age) ns); the listener was not registered"
        case .busShutDown(let bus, let type):
            "\(type) was dispatched on bus '\(bus)' after it shut down; the event was not delivered"
        case .threadCancelled(let thread):
            "a callback was added to \(thread) after it was cancelled; it will never run"
        case .handlerFailed(let event, _, let receiver, let error):
            "a handler for \(String(reflecting: type(of: event))) on \(receiver) threw \(String(reflecting: error)); "
                + "other deliveries went on"
        case .mailboxFull(let receiver, let type):
            "the mailbox of \(receiver) was full; \(type) was not delivered to it"
        case .catchAllSubscription(let api):
            "\(api) was asked for AllEvents, which only an EventConsumer's lists accept (register(_:) a consumer whose willConsume is [AllEvents.self]); nothing was registered"
        case .synchronousDepthExceeded(let bus, let type, let receiver, let limit):
            "\(type) on bus '\(bus)' was not delivered to \(receiver): synchronous deliveries already nested "
                + "\(limit) deep on this thread (EventBus.maximumSynchronousDepth); it is a failed dead letter"
        }
    }

    /// Whether two errors report the same thing. Two ``handlerFailed(event:metadata:receiver:error:)``
    /// are equal when their events have the same type and metadata, their receivers the same
    /// description, and their errors the same type and description (events and errors need not
    /// be `Equatable`).
    public static func == (lhs: EventDrivenError, rhs: EventDrivenError) -> Bool {
        lhs.identity == rhs.identity
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
    }

    /// What ``==(_:_:)`` compares: the case and its values, in words.
    private var identity: [String] {
        switch self {
        case .nilOwner(let type): ["nilOwner", type]
        case .missingCustomFilter(let type): ["missingCustomFilter", type]
        case .negativeMaximumAge(let type, let age): ["negativeMaximumAge", type, "\(age)"]
        case .busShutDown(let bus, let type): ["busShutDown", bus, type]
        case .threadCancelled(let thread): ["threadCancelled", thread]
        case .handlerFailed(let event, let metadata, let receiver, let error):
            [
                "handlerFailed", String(reflecting: type(of: event)), String(describing: metadata), receiver,
                String(reflecting: type(of: error)), String(describing: error),
            ]
        case .mailboxFull(let receiver, let type): ["mailboxFull", receiver, type]
        case .catchAllSubscription(let api): ["catchAllSubscription", api]
        case .synchronousDepthExceeded(let bus, let type, let receiver, let limit):
            ["synchronousDepthExceeded", bus, type, receiver, "\(limit)"]
        }
    }
}
