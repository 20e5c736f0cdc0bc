// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 1: an EventThread, its observers, a reciprocal event, and stopping the thread.

protocol TemperatureProcessorObserver: AnyObject {
    func onTemperatureEvent(temperatureInCelsius: Float)
}

/// Receives temperatures on a thread of its own, rates them, tells its observers, and
/// dispatches the rating as a reciprocal event on its own bus.
final class TemperatureProcessor: EventThread, @unchecked Sendable {  // its state is in @ThreadSafeSemaphore properties
    /// The latest temperature received.
    @ThreadSafeSemaphore public var temperatureInCelsius: Float = Float.zero
    /// The rating of the latest temperature.
    @ThreadSafeSemaphore public var temperatureRating: TemperatureRating = .freezing

    override func registerEventListeners() {
        addEventCallback(onTemperatureEvent, forEventType: TemperatureEvent.self)
    }

    func onTemperatureEvent(_ event: TemperatureEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        temperatureInCelsius = event.temperatureInCelsius
        temperatureRating = TemperatureRating.fromTemperature(event.temperatureInCelsius)
        withObservers { (observer: TemperatureProcessorObserver) in
            observer.onTemperatureEvent(temperatureInCelsius: event.temperatureInCelsius)
        }
        TemperatureRatingEvent(temperatureInCelsius: temperatureInCelsius, temperatureRating: temperatureRating)
            .queue(on: bus)
    }
}

/// An observer of the processor, as a view might be; called on the processor's thread.
final class Thermometer: TemperatureProcessorObserver, Sendable {
    func onTemperatureEvent(temperatureInCelsius: Float) {
        print("  observer: the processor's thread saw \(temperatureInCelsius.celsius)")
    }
}

func eventThreadSection() async throws {
    section(
        1, "An EventThread receives a TemperatureEvent",
        "A TemperatureProcessor (an EventThread) rates each temperature on its own thread, tells its",
        "observer, and dispatches a TemperatureRatingEvent: a reciprocal event, heard by a listener.",
        "Every section runs on a bus of its own (EventBus(label:)) and shuts it down at its end;",
        "EventCentral.shared, the default bus, is never used, so no section sees another's events.")
    let bus = EventBus.demo("EventThread")
    let processor = TemperatureProcessor(bus: bus)
    let thermometer = Thermometer()
    processor.addObserver(thermometer)
    bus.listen(TemperatureRatingEvent.self, executeOn: .listenerThread) { rating, _ in
        print("  listener: \(rating.temperatureInCelsius.celsius) is \(rating.temperatureRating)")
    }
    print("  before: \(processor.temperatureInCelsius.celsius), \(processor.temperatureRating)")
    TemperatureEvent(temperatureInCelsius: 25.5).queue(on: bus)
    // Two hops: the reading, then the rating its handler dispatched. drain() waits for one hop;
    // waitUntilQuiet waits until nothing is pending anywhere.
    try await bus.waitUntilQuiet(timeout: .seconds(5))
    print("  after: \(processor.temperatureInCelsius.celsius), \(processor.temperatureRating)")

    weak let weakProcessor = processor
    let discarded = processor.cancel(draining: true)
    print("  cancel(draining: true) stopped the thread; events discarded: \(discarded)")
    await bus.shutdown()
    _ = consume processor
    print("  once stopped and no longer referenced, the thread is freed: \(weakProcessor == nil)")
    printStatistics(
        of: bus,
        [
            "delivered": "the reading reached the processor, and the rating reached the listener"
        ])
}
