// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventDrivenError {
    /// What went wrong: one of the static members below. More may be added in any version, so a
    /// `switch` over codes needs a `default`.
    ///
    /// ```swift
    /// switch error.code {
    /// case .mailboxFull: slowDown()
    /// case .busShutDown: break
    /// default: log(error)
    /// }
    /// ```
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The codes there are; internal, so that adding one breaks no code outside the module.
        enum Base: String, Hashable, Sendable {
            case nilOwner
            case missingCustomFilter
            case customFilterIsolation
            case customFilterEventType
            case negativeMaximumAge
            case busShutDown
            case threadCancelled
            case threadOfAnotherBus
            case handlerFailed
            case mailboxFull
            case catchAllSubscription
            case synchronousDepthExceeded
        }

        let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// `addListener` was given a `nil` owner; the listener was not registered.
        /// The error's ``EventDrivenError/eventType`` says for which type.
        public static let nilOwner = Code(.nilOwner)

        /// `interestedIn: .custom` was given without a `customFilter`; the listener was not
        /// registered. The error's ``EventDrivenError/eventType`` says for which type.
        public static let missingCustomFilter = Code(.missingCustomFilter)

        /// A `customFilter` isolated to an actor (a method of a `@MainActor` model) was given to a
        /// listener that does not run on that actor, where the filter runs; the listener was not
        /// registered. The error's ``EventDrivenError/eventType`` says for which type.
        public static let customFilterIsolation = Code(.customFilterIsolation)

        /// `interestedIn: .custom { (event: X, metadata) in … }` was given a filter for a type
        /// `X` that the listener's events are not (another event type), which would decline
        /// every event; the listener was not registered. The error carries
        /// ``EventDrivenError/eventType`` (the listener's) and ``EventDrivenError/filterEventType``.
        public static let customFilterEventType = Code(.customFilterEventType)

        /// `maximumAge` was negative; the listener was not registered. The error carries
        /// ``EventDrivenError/eventType`` and ``EventDrivenError/maximumAge``.
        public static let negativeMaximumAge = Code(.negativeMaximumAge)

        /// An event was dispatched on a bus that has been shut down; it was not delivered. The
        /// error carries ``EventDrivenError/bus`` and ``EventDrivenError/eventType``.
        public static let busShutDown = Code(.busShutDown)

        /// A handler was registered on an EventThread that has been cancelled; it will never run.
        /// The error's ``EventDrivenError/thread`` names the thread.
        public static let threadCancelled = Code(.threadCancelled)

        /// A handler was registered on one bus to run on an EventThread of another
        /// (`executeOn: .thread(t)`): each bus runs its listeners on threads of its own, which
        /// its shutdown stops and its statistics count, so nothing was registered. The error's
        /// ``EventDrivenError/thread`` names the thread and ``EventDrivenError/bus`` the bus
        /// registered on.
        public static let threadOfAnotherBus = Code(.threadOfAnotherBus)

        /// A handler threw; other handlers and later deliveries were not affected. The delivery is
        /// counted in ``EventBusStatistics/failed`` and posted as a dead letter
        /// (``DeadLetter/Reason/failed``), so it can be retried. The error carries the
        /// ``EventDrivenError/event``, its ``EventDrivenError/metadata``, the
        /// ``EventDrivenError/receiver`` where the handler ran and what it threw
        /// (``EventDrivenError/underlyingError``).
        ///
        /// ```swift
        /// bus.setErrorHandler { error in
        ///     if error.code == .handlerFailed, let payment = error.event as? Payment,
        ///         let declined = error.underlyingError as? PaymentError { … }
        /// }
        /// ```
        public static let handlerFailed = Code(.handlerFailed)

        /// A bounded mailbox was full and its policy refused the event (or a blocked producer
        /// timed out); the event was not delivered to that receiver. The error carries
        /// ``EventDrivenError/receiver`` and ``EventDrivenError/eventType``.
        public static let mailboxFull = Code(.mailboxFull)

        /// A listener, callback or stream was asked for ``AllEvents``, which has no values and is
        /// never dispatched: it stands for every type only in an ``EventConsumer``'s lists.
        /// Nothing was registered; a stream ends at once. The error's ``EventDrivenError/api``
        /// names the call.
        public static let catchAllSubscription = Code(.catchAllSubscription)

        /// A synchronous delivery would have nested deeper than ``EventBus/maximumSynchronousDepth``
        /// on its thread (a synchronous receiver that keeps dispatching synchronously), so its
        /// handler did not run. It is counted in ``EventBusStatistics/failed`` and posted as a
        /// dead letter (``DeadLetter/Reason/failed``). The error carries ``EventDrivenError/bus``,
        /// ``EventDrivenError/eventType``, ``EventDrivenError/receiver`` and
        /// ``EventDrivenError/limit``.
        public static let synchronousDepthExceeded = Code(.synchronousDepthExceeded)

        /// The code's name, as written after the dot: `"mailboxFull"`.
        public var description: String { base.rawValue }
    }
}

extension EventDrivenError.Code {
    /// Whether `error` is an ``EventDrivenError`` with this code, so that a code can be a
    /// pattern: `case .mailboxFull:` in a `switch` over an ``EventDrivenError``, or
    /// `catch EventDrivenError.Code.mailboxFull { … }`.
    public static func ~= (pattern: EventDrivenError.Code, error: any Error) -> Bool {
        (error as? EventDrivenError)?.code == pattern
    }
}
