// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// The README's "EventListener" section as written, in a user's module: the view model and its
// three `interestedIn:` registrations, placed "inside TemperatureRatingViewModel" as the README
// says. Its `interestedIn:` block wrote `Self.onTemperatureRatingEvent`, which does not compile
// in a class (`Self` is the dynamic type there, final class or not); it names the class now.
import Dispatch
import EventDrivenSwift
import Testing

enum ReadmeListenerForm {
    enum TemperatureRating: String, Sendable {
        case freezing, reallyCold, cold, warm, hot, reallyHot
    }

    struct TemperatureRatingEvent: Eventable {
        var temperatureInCelsius: Float
        var temperatureRating: TemperatureRating
    }

    @MainActor
    final class TemperatureRatingViewModel {
        var temperatureInCelsius: Float = 0
        var temperatureRating: TemperatureRating = .freezing
        var listenerHandle: EventListenerHandling?
        var filteredHandles: [EventListenerHandling] = []

        init() {
            listenerHandle = TemperatureRatingEvent.addListener(
                self, TemperatureRatingViewModel.onTemperatureRatingEvent)
        }

        /// The README's `interestedIn:` block, as written.
        func registerInterests() {
            filteredHandles = [
                TemperatureRatingEvent.addListener(
                    self, TemperatureRatingViewModel.onTemperatureRatingEvent, interestedIn: .latestOnly),
                TemperatureRatingEvent.addListener(
                    self, TemperatureRatingViewModel.onTemperatureRatingEvent, interestedIn: .youngerThan,
                    maximumAge: 1 * 1_000_000_000),
                TemperatureRatingEvent.addListener(
                    self, TemperatureRatingViewModel.onTemperatureRatingEvent, interestedIn: .custom,
                    customFilter: { event, _, _ in
                        event.temperatureInCelsius <= 50
                    }),
            ]
        }

        func onTemperatureRatingEvent(
            _ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
        ) {
            temperatureInCelsius = event.temperatureInCelsius
            temperatureRating = event.temperatureRating
        }
    }
}

@Suite("The README's EventListener section, in a user's module")
@MainActor
struct ReadmeListenerFormTests {
    @Test("the view model and its three interestedIn registrations compile and register without error")
    func listenerForms() {
        let model = ReadmeListenerForm.TemperatureRatingViewModel()
        model.registerInterests()
        let handles = [model.listenerHandle].compactMap { $0 } + model.filteredHandles
        #expect(handles.count == 4)
        for handle in handles {
            #expect((handle as? EventListenerHandle)?.registrationError == nil)
            #expect(handle is EventListenerHandle)
            handle.cancel()
        }
    }
}
