// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// Issue 25: an `@Observable @MainActor` view model updated by events on a running main queue.
import EventDrivenSwift
import Observation
import Testing

struct OutsideReading: Eventable {
    let celsius: Double
}

@Observable @MainActor final class ThermometerModel {
    var celsius = 0.0
    @ObservationIgnored private var handle: EventListenerHandle?

    init(bus: EventBus) {
        // The owner is held weakly and handed to the closure; once it is freed, the listener goes.
        handle = bus.listen(OutsideReading.self, owner: self) { owner, event in
            owner.celsius = event.celsius
        }
    }
}

@Suite("U4: an @Observable @MainActor model updated by events")
@MainActor
struct ObservationModelTests {
    @Test("withObservationTracking sees each change; the model and its listener go once nothing holds it")
    func modelFollowsEvents() async {
        let bus = EventBus(label: "issue25-observation")
        var model: ThermometerModel? = ThermometerModel(bus: bus)
        weak let weakModel = model
        let changes = ChangeCount()
        var seen: [Double] = []
        for (index, celsius) in [21.0, 22.5, 19.0].enumerated() {
            withObservationTracking {
                _ = model?.celsius
            } onChange: {
                changes.add()
            }
            OutsideReading(celsius: celsius).queue(on: bus)
            // Awaiting frees the main actor: the main queue delivers the event meanwhile.
            await bus.drain()
            #expect(changes.value == index + 1)
            seen.append(model?.celsius ?? .nan)
        }
        #expect(seen == [21.0, 22.5, 19.0])
        #expect(bus.subscriberCount(for: OutsideReading.self) == 1)
        model = nil
        #expect(weakModel == nil, "nothing but the test held the model")
        OutsideReading(celsius: 0).queue(on: bus)
        await bus.drain()
        #expect(bus.subscriberCount(for: OutsideReading.self) == 0, "its listener went with it")
    }
}
