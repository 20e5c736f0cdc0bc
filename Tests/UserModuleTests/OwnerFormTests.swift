// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// Issue 25: `bus.listen(E.self, owner: self) { owner, event in … }` in an `@Observable @MainActor`
// model, written with no annotation, no `[weak self]` and no `@unchecked`.
import EventDrivenSwift
import Observation
import Testing

struct Forecast: Eventable {
    let celsius: Double
}

struct BadForecast: Error {}

@Observable @MainActor final class ForecastModel {
    var celsius = 0.0
    var history: [Double] = []
    var ages: [UInt64] = []
    var rejected = 0
    @ObservationIgnored private(set) var handles: [EventListenerHandle] = []

    init(bus: EventBus) {
        handles.append(
            bus.listen(Forecast.self, owner: self) { owner, event in
                owner.celsius = event.celsius  // main-actor state, on the main actor
            })
        handles.append(
            bus.listen(Forecast.self, owner: self) { owner, event, metadata in
                owner.history.append(event.celsius)
                owner.ages.append(metadata.age)
            })
        handles.append(
            bus.listen(Forecast.self, owner: self) { owner, event in
                guard event.celsius < 100 else {
                    owner.rejected += 1
                    throw BadForecast()
                }
            })
    }
}

@Suite("U1: listen(_:owner:) { owner, event in … } in an @Observable @MainActor model")
@MainActor
struct OwnerFormTests {
    @Test("events reach the model on the main actor, with and without metadata, and a throwing form")
    func eventsArrive() async {
        let bus = EventBus(label: "issue25-owner")
        let errors = LockedValue(0)
        bus.setErrorHandler { _ in errors.withLock { $0 += 1 } }
        let model = ForecastModel(bus: bus)
        let changes = ChangeCount()
        withObservationTracking {
            _ = model.celsius
        } onChange: {
            changes.add()
        }
        await Task.detached {
            for celsius in [18.0, 19.5, 120.0] { Forecast(celsius: celsius).queue(on: bus) }
        }.value
        await bus.drain()
        #expect(model.celsius == 120)
        #expect(model.history == [18, 19.5, 120])
        #expect(model.ages.count == 3)
        #expect(model.rejected == 1)
        let reported = errors.withLock { $0 }
        #expect(reported == 1, "the throwing form's error reached the error handler")
        #expect(changes.value == 1)
        #expect(model.handles.allSatisfy { $0.isActive })
    }

    @Test("the owner is held weakly: once it is freed its listeners are gone")
    func ownerFreed() async {
        let bus = EventBus(label: "issue25-owner-freed")
        var model: ForecastModel? = ForecastModel(bus: bus)
        weak let weakModel = model
        let handles = model?.handles ?? []
        Forecast(celsius: 1).queue(on: bus)
        await bus.drain()
        #expect(model?.celsius == 1)
        #expect(bus.subscriberCount(for: Forecast.self) == 3)
        model = nil
        #expect(weakModel == nil, "the closures do not keep their owner alive")
        #expect(handles.count == 3 && handles.allSatisfy { !$0.isActive })
        Forecast(celsius: 2).queue(on: bus)
        await bus.drain()
        #expect(bus.subscriberCount(for: Forecast.self) == 0, "its listeners went with it")
        #expect(bus.statistics.ownerReleased == 3)
    }
}
