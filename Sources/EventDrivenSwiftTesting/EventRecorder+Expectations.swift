// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Questions that read well inside `#expect` or `XCTAssert`: each returns a plain value.
extension EventRecorder {
    /// `true` if some recorded event satisfies `predicate`.
    ///
    /// ```swift
    /// #expect(readings.received { $0.temperatureInCelsius > 30 })
    /// ```
    public func received(where predicate: (E) throws -> Bool) rethrows -> Bool {
        try events.contains(where: predicate)
    }

    /// How many recorded events satisfy `predicate`.
    public func count(where predicate: (E) throws -> Bool) rethrows -> Int {
        try events.count(where: predicate)
    }

    /// The recorded events that satisfy `predicate`, in the order they were dispatched.
    public func events(where predicate: (E) throws -> Bool) rethrows -> [E] {
        try events.filter(predicate)
    }

    /// The records of the events that satisfy `predicate`, with their metadata.
    public func records(where predicate: (RecordedEvent<E>) throws -> Bool) rethrows -> [RecordedEvent<E>] {
        try records.filter(predicate)
    }

    /// `true` if no recorded event satisfies `predicate`.
    public func receivedNone(where predicate: (E) throws -> Bool) rethrows -> Bool {
        try !events.contains(where: predicate)
    }
}

extension EventRecorder where E: Equatable {
    /// `true` if `event` was recorded.
    ///
    /// ```swift
    /// #expect(navigation.received(NavigationEvent(destination: .settings)))
    /// ```
    public func received(_ event: E) -> Bool {
        events.contains(event)
    }
}
