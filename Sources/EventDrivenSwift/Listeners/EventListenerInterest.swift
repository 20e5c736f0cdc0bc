/// Which events a listener wants.
public enum EventListenerInterest: CaseIterable, Sendable {
    /// Every event of the type.
    case all
    /// Only the newest: an event is skipped when a newer event of its type was dispatched on
    /// the bus before the callback could run. Skipped events are counted as superseded.
    case latestOnly
    /// Only events younger than `maximumAge` nanoseconds when the callback would run; older
    /// ones are counted as expired. A `maximumAge` of 0 means no limit.
    case youngerThan
    /// Only events for which `customFilter` returns `true`.
    case custom
}
