// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Synchronization
import Testing

private struct CountedReading: Eventable {
    let number: Int
}

/// 5.2's README form `addListener(self, onTemperatureRatingEvent, executeOn: .listenerThread)`,
/// in a `@MainActor` model: a bound method of the model with `executeOn:`. Before, it did not
/// compile ("converting function value … loses global actor 'MainActor'"); the unapplied form
/// (`Model.onReading`) did. Like that form, the method runs on its own actor, the main actor,
/// whatever `executeOn` says: it is the only place where the model's state may be touched.
@MainActor
private final class BoundMethodModel {
    var seen: [Int] = []
    var handle: EventListenerHandle?

    init(bus: EventBus, executeOn: DeliveryContext) {
        handle = CountedReading.addListener(self, onReading, executeOn: executeOn, on: bus)
    }

    func onReading(_ event: CountedReading, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        MainActor.preconditionIsolated("a main-actor method ran elsewhere")
        seen.append(event.number)
    }
}

@Suite("5.2's bound method of a @MainActor model with executeOn:")
struct BoundMethodExecuteOnTests {
    @Test(
        "it compiles and runs on the main actor, in order",
        arguments: [DeliveryContext.listenerThread, .taskThread, .synchronous, .requesterThread])
    @MainActor
    func runsOnTheMainActor(executeOn: DeliveryContext) async {
        let bus = EventBus(label: "bound-method-execute-on")
        let model = BoundMethodModel(bus: bus, executeOn: executeOn)
        #expect(model.handle?.registrationError == nil)
        for number in 1...3 { CountedReading(number: number).queue(on: bus) }
        await bus.drain()
        #expect(model.seen == [1, 2, 3])
        model.handle?.cancel()
    }

    @Test("a closure given with executeOn: still runs where executeOn says")
    @MainActor
    func closureFollowsExecuteOn() async {
        let bus = EventBus(label: "closure-execute-on")
        let runs = ThreadCount()
        let handle = CountedReading.addListener(
            runs, { _, _, _ in runs.record() }, executeOn: .listenerThread, on: bus)
        CountedReading(number: 1).queue(on: bus)
        await bus.drain()
        #expect(runs.total.load(ordering: .acquiring) == 1)
        #expect(runs.onMainThread.load(ordering: .acquiring) == 0)
        handle.cancel()
    }
}

/// How often a closure ran, and how often on the main thread.
private final class ThreadCount: Sendable {
    let total = Atomic<Int>(0)
    let onMainThread = Atomic<Int>(0)

    func record() {
        if Thread.isMainThread { onMainThread.add(1, ordering: .relaxed) }
        total.add(1, ordering: .releasing)
    }
}
