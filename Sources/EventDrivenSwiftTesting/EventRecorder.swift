// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

/// Records every event of one type dispatched on a bus, with its metadata, for tests.
///
/// A recorder records from the moment it is created: create it before the code under test
/// dispatches. It listens with `DeliveryContext.synchronous`, so an event is recorded on the
/// dispatching thread before `queue`, `stack` or `dispatchNow` returns, whatever kind of bus
/// and whichever other receivers there are.
///
/// ```swift
/// let readings = EventRecorder(of: TemperatureEvent.self, on: bus)
/// TemperatureEvent(temperatureInCelsius: 21).queue(on: bus)
/// TemperatureEvent(temperatureInCelsius: 35).queue(on: bus)
/// let first = try await readings.next()                   // 21
/// let both = try await readings.waitFor(count: 2)         // 21, 35
/// #expect(readings.received { $0.temperatureInCelsius > 30 })
/// ```
///
/// The recorder is one of the bus's subscribers while it records: it counts in
/// `EventBus.subscriberCount(for:)` and `EventBusStatistics.delivered`, and an event of its
/// type is never `undelivered` (nor a dead letter for that reason). ``stop()`` or releasing the
/// recorder removes it.
public final class EventRecorder<E: Eventable>: Sendable {
    /// The bus the recorder listens on.
    public let bus: EventBus
    private let storage = _RecordingStorage<RecordedEvent<E>>()
    private let handle: EventListenerHandle

    /// Starts recording every event of type `type` dispatched on `bus`.
    ///
    /// `type` cannot be `AllEvents`, which only consumers can list.
    public init(of type: E.Type = E.self, on bus: EventBus) {
        self.bus = bus
        let storage = self.storage
        handle = bus.listen(type, executeOn: .synchronous) { event, metadata in
            storage.append(RecordedEvent(event: event, metadata: metadata))
        }
        if let error = handle.registrationError {
            preconditionFailure("EventRecorder cannot record \(String(reflecting: type)): \(error)")
        }
    }

    deinit {
        handle.cancel()
    }

    // MARK: What was recorded

    /// Every recorded event with its metadata, in the order the events were dispatched.
    public var records: [RecordedEvent<E>] { storage.records }

    /// Every recorded event, in the order they were dispatched.
    public var events: [E] { storage.records.map(\.event) }

    /// The metadata of every recorded event, in the same order as ``events``.
    public var metadata: [EventMetadata] { storage.records.map(\.metadata) }

    /// How many events have been recorded.
    public var count: Int { storage.count }

    /// `true` while nothing has been recorded.
    public var isEmpty: Bool { storage.count == 0 }

    /// The most recently recorded event.
    public var last: E? { storage.records.last?.event }

    // MARK: Waiting

    /// Returns the next recorded event that no earlier call of `next` returned, waiting for it
    /// if it has not been dispatched yet.
    ///
    /// The first call returns the first event recorded, the second call the second, and so on.
    /// Calls that run at the same time take consecutive events; a call that fails gives its
    /// event back, and the next call takes the earliest event given back.
    /// - Parameter timeout: How long to wait; 5 seconds by default.
    /// - Throws: ``EventRecorderTimeout`` when no such event arrived in time (a later call waits
    ///   for the same event again), or `CancellationError` if the task is cancelled.
    public func next(timeout: Duration = .seconds(5)) async throws -> E {
        try await nextRecord(timeout: timeout).event
    }

    /// ``next(timeout:)`` with the event's metadata.
    public func nextRecord(timeout: Duration = .seconds(5)) async throws -> RecordedEvent<E> {
        let index = storage.reserveNext()
        do {
            if try await storage.waitUntil(count: index + 1, timeout: timeout), let record = storage.record(at: index) {
                return record
            }
        } catch {
            storage.unreserve(index)
            throw error
        }
        storage.unreserve(index)
        throw timeoutError(expected: index + 1, timeout: timeout)
    }

    /// Returns the first `count` recorded events once that many have been recorded (at once if
    /// they already have).
    ///
    /// - Parameters:
    ///   - count: How many events to wait for; 0 returns an empty array at once.
    ///   - timeout: How long to wait; 5 seconds by default.
    /// - Throws: ``EventRecorderTimeout`` saying how many arrived, when fewer than `count` did in
    ///   time; ``EventRecorderMisuse/negativeCount(_:)`` when `count` is negative;
    ///   `CancellationError` if the task is cancelled.
    @discardableResult
    public func waitFor(count: Int, timeout: Duration = .seconds(5)) async throws -> [E] {
        guard count >= 0 else { throw EventRecorderMisuse.negativeCount(count) }
        guard try await storage.waitUntil(count: count, timeout: timeout) else {
            throw timeoutError(expected: count, timeout: timeout)
        }
        return Array(storage.records.prefix(count).map(\.event))
    }

    // MARK: Control

    /// Stops recording; what was recorded stays.
    public func stop() {
        handle.cancel()
    }

    /// `true` until ``stop()``, or until the bus shuts down.
    public var isRecording: Bool { handle.isActive }

    /// Forgets every recorded event; ``next(timeout:)`` starts again with the next event to arrive.
    ///
    /// Call it while no wait of this recorder is pending.
    public func removeAll() {
        storage.removeAll()
    }

    private func timeoutError(expected: Int, timeout: Duration) -> EventRecorderTimeout {
        EventRecorderTimeout(
            eventType: String(reflecting: E.self), expected: expected, received: storage.count, timeout: timeout)
    }
}

extension EventBus {
    /// Starts recording every event of type `type` dispatched on this bus; see ``EventRecorder``.
    ///
    /// ```swift
    /// let readings = bus.record(TemperatureEvent.self)
    /// ```
    public func record<E: Eventable>(_ type: E.Type) -> EventRecorder<E> {
        EventRecorder(of: type, on: self)
    }
}
