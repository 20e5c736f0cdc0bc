// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Which events a listener wants.
///
/// ```swift
/// bus.listen(Reading.self, interestedIn: .latestOnly) { … }
/// bus.listen(Reading.self, interestedIn: .youngerThan(.seconds(1))) { … }
/// bus.listen(Reading.self, interestedIn: .custom { (reading: Reading, _) in reading.value < 50 }) { … }
/// ```
///
/// The forms that carry their parameter (``youngerThan(_:)``, ``custom(_:)``) are the native
/// ones; EventDrivenSwift 5.2's ``youngerThan`` and ``custom`` take theirs from the
/// `maximumAge:` and `customFilter:` arguments of `addListener`, as they always did.
public struct EventListenerInterest: Sendable, CaseIterable {
    enum Kind: Sendable {
        case all
        case latestOnly
        /// An age limit in nanoseconds (a negative one is refused at registration); `nil` reads
        /// it from `maximumAge:`.
        case youngerThan(Int64?)
        /// A filter; `nil` reads it from `customFilter:`.
        case custom(CustomFilter?)
    }

    /// A filter of ``custom(_:)``, with the type of the events it was written for.
    struct CustomFilter: Sendable {
        /// The name of the type the filter takes (`String(reflecting:)`), for errors.
        let eventTypeName: String
        /// Whether the events of a listener for `type` are events the filter takes (`type` is
        /// its type, or a subclass of it).
        let takes: @Sendable (any Eventable.Type) -> Bool
        /// The filter, for an event the listener was given.
        let accepts: @Sendable (any Eventable, EventMetadata) -> Bool
    }

    let kind: Kind

    /// Every event of the type.
    public static let all = EventListenerInterest(kind: .all)
    /// Only the newest: an event is skipped when a newer event of its type was dispatched on
    /// the bus before the callback could run. Skipped events are counted as superseded.
    public static let latestOnly = EventListenerInterest(kind: .latestOnly)
    /// Only events younger than `maximumAge` nanoseconds (the listener's argument) when the
    /// callback would run; older ones are counted as expired. A `maximumAge` of 0 means no limit.
    /// The native form is ``youngerThan(_:)``.
    public static let youngerThan = EventListenerInterest(kind: .youngerThan(nil))
    /// Only events for which `customFilter` (the listener's argument) returns `true`.
    /// The native form is ``custom(_:)``.
    public static let custom = EventListenerInterest(kind: .custom(nil))

    /// The four interests of EventDrivenSwift 5.2.
    public static let allCases: [EventListenerInterest] = [.all, .latestOnly, .youngerThan, .custom]

    /// Only events younger than `age` when the callback would run; older ones are counted as
    /// expired. A zero `age` means no limit; a negative one is misuse, as a negative `maximumAge`
    /// is: the listener is not registered and the registration reports
    /// ``EventDrivenError/Code/negativeMaximumAge``. Ages are kept in whole nanoseconds: one
    /// shorter than a nanosecond counts as one nanosecond with its sign, never as zero (so a
    /// negative one is misuse).
    public static func youngerThan(_ age: Duration) -> EventListenerInterest {
        EventListenerInterest(kind: .youngerThan(age._clampedNanoseconds))
    }

    /// Only events for which `accepts` returns `true`; declined ones are counted as filtered.
    /// `accepts` runs where the callback runs, just before it.
    ///
    /// Name the event type in the closure (`{ (reading: Reading, metadata) in … }`). A filter
    /// written for another type than the listener's (one its events are not, such as a
    /// superclass) would decline every event: the listener is not registered and the
    /// registration reports ``EventDrivenError/Code/customFilterEventType``.
    public static func custom<E: Eventable>(
        _ accepts: @escaping @Sendable (E, EventMetadata) -> Bool
    ) -> EventListenerInterest {
        EventListenerInterest(
            kind: .custom(
                CustomFilter(
                    eventTypeName: String(reflecting: E.self), takes: { $0 is E.Type },
                    accepts: { event, metadata in
                        guard let event = event as? E else { return false }
                        return accepts(event, metadata)
                    })))
    }
}
