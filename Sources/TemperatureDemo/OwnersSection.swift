// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 5: listener owners — held weakly; an unapplied method lets the owner go.

/// A view model, as SwiftUI's are: main-actor isolated, so its listener runs on the main actor.
@MainActor
final class TemperatureRatingViewModel {
    var temperatureInCelsius: Float = 0
    var temperatureRating: TemperatureRating = .freezing
    var listenerHandle: EventListenerHandling?
    let name: String

    init(name: String, bus: EventBus, unapplied: Bool) {
        self.name = name
        if unapplied {
            listenerHandle = TemperatureRatingEvent.addListener(
                self, TemperatureRatingViewModel.onTemperatureRatingEvent, on: bus)
        } else {
            listenerHandle = TemperatureRatingEvent.addListener(self, onTemperatureRatingEvent, on: bus)
        }
    }

    func onTemperatureRatingEvent(_ event: TemperatureRatingEvent, _ priority: EventPriority, _ time: DispatchTime) {
        temperatureInCelsius = event.temperatureInCelsius
        temperatureRating = event.temperatureRating
        print("  \(name) on the main actor: \(event.temperatureInCelsius.celsius) is \(event.temperatureRating)")
    }
}

@MainActor
func ownersSection() async {
    section(
        5, "Listener owners: a freed view model is no longer called",
        "Two @MainActor view models listen for ratings; registered from main-actor code, their",
        "listeners run on the main actor (this program's async main keeps the main queue running).",
        "'unapplied' registered TemperatureRatingViewModel.onTemperatureRatingEvent: the bus holds",
        "it weakly, so dropping our reference frees it. 'bound' registered self.onTemperatureRatingEvent:",
        "the bound method holds it strongly, so it lives, and is called, until its handle is removed.")
    let bus = EventBus.demo("Owners")
    var unapplied: TemperatureRatingViewModel? = TemperatureRatingViewModel(
        name: "unapplied", bus: bus, unapplied: true)
    var bound: TemperatureRatingViewModel? = TemperatureRatingViewModel(name: "bound", bus: bus, unapplied: false)
    weak let weakUnapplied = unapplied
    weak let weakBound = bound

    TemperatureRatingEvent(temperatureInCelsius: 21, temperatureRating: .warm).queue(on: bus)
    await bus.drain()

    let boundHandle = bound?.listenerHandle
    unapplied = nil
    bound = nil
    print("  after dropping both references: unapplied freed \(weakUnapplied == nil), bound freed \(weakBound == nil)")
    TemperatureRatingEvent(temperatureInCelsius: 30, temperatureRating: .hot).queue(on: bus)
    await bus.drain()

    boundHandle?.cancel()
    print("  after cancel() of the bound listener's handle: bound freed \(weakBound == nil)")
    TemperatureRatingEvent(temperatureInCelsius: 40, temperatureRating: .reallyHot).queue(on: bus)
    await bus.drain()
    await bus.shutdown()
    printStatistics(
        of: bus,
        [
            "delivered": "21 °C to both view models, 30 °C to the bound one",
            "ownerReleased": "30 °C, meant for the unapplied view model's listener, whose owner was freed",
            "undelivered": "40 °C: by then neither view model was listening",
        ])
}
