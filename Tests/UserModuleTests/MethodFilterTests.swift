// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

private struct RatingReading: Eventable {
    let celsius: Float
}

/// 5.2's README form, in a `@MainActor` model: the handler and the filter are both methods of the
/// model (`customFilter: onReadingFilter`). Before, the filter did not compile ("converting function
/// value of type '@MainActor @Sendable (…) -> Bool' to '@Sendable (…) -> Bool' loses global actor").
@MainActor
private final class FilteringModel {
    var seen: [Float] = []
    /// How often the filter ran; it is a `@MainActor` method, so the library's isolation check
    /// stops the program if it runs elsewhere.
    var filterRuns = 0
    var handle: EventListenerHandle?

    init(bus: EventBus) {
        handle = RatingReading.addListener(
            self, onReading, interestedIn: .custom, customFilter: onReadingFilter, on: bus)
    }

    func onReading(_ event: RatingReading, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        seen.append(event.celsius)
    }

    func onReadingFilter(_ event: RatingReading, _ priority: EventPriority, _ dispatchTime: DispatchTime) -> Bool {
        filterRuns += 1
        return event.celsius <= 50
    }
}

@Suite("5.2's customFilter given as a method of a @MainActor model")
struct MethodFilterTests {
    @Test("it filters on the main actor, where the model's listener runs")
    @MainActor
    func filtersOnTheMainActor() async {
        let bus = EventBus(label: "method-filter")
        let model = FilteringModel(bus: bus)
        #expect(model.handle?.registrationError == nil)
        for celsius: Float in [20, 60, 40] { RatingReading(celsius: celsius).queue(on: bus) }
        await bus.drain()
        #expect(model.seen == [20, 40])
        #expect(model.filterRuns == 3)
        #expect(bus.statistics.filtered == 1)
        model.handle?.cancel()
    }

    @Test("given to a listener that runs elsewhere, the registration fails with customFilterIsolation")
    @MainActor
    func refusedOnAnotherContext() {
        let bus = EventBus(label: "method-filter-elsewhere")
        let model = FilteringModel(bus: bus)
        let handle = RatingReading.addListener(
            model, { _, _, _ in }, executeOn: .listenerThread, interestedIn: .custom,
            customFilter: model.onReadingFilter, on: bus)
        #expect(handle.registrationError?.code == .customFilterIsolation)
        #expect(!handle.isActive)
        model.handle?.cancel()
    }
}
