// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// Each line marked RACE hands a handler that runs on another thread some state that nothing
// protects. Every one of them must be a compile error in Swift 6 mode.
import Dispatch
import EventDrivenSwift

struct Reading: Eventable { let value: Int }

/// Not Sendable: a plain class with mutable state.
final class Tally {
    var count = 0
    func onReading(_ event: Reading, _ priority: EventPriority, _ dispatchTime: DispatchTime) { count += 1 }
}

/// Consumers run on dispatching threads, so an `EventConsumer` is `Sendable`.
final class TallyConsumer: EventConsumer {
    var count = 0  // RACE
    var willConsume: [any Eventable.Type] { [Reading.self] }
    func consume(_ event: any Eventable) { count += 1 }
}

final class Processor: EventThread, @unchecked Sendable {}

/// A main-actor view model. Its methods, unapplied or bound, and a `@MainActor` closure compile
/// with any `executeOn`, and are no race: the listener runs a callback isolated to an actor on
/// that actor whatever `executeOn` says (`IsolatedMethodTests`, `BoundMethodExecuteOnTests` check
/// it at run time). A closure without `@MainActor` that touches the model's state does not
/// compile (RACE line below).
@MainActor final class Screen {
    var count = 0
    func onReading(_ event: Reading, _ priority: EventPriority, _ dispatchTime: DispatchTime) { count += 1 }

    func register(bus: EventBus) {
        Reading.addListener(self, Screen.onReading, executeOn: .listenerThread, on: bus)
        Reading.addListener(self, onReading, executeOn: .listenerThread, on: bus)
        Reading.addListener(self, { @MainActor _, _, _ in self.count += 1 }, executeOn: .taskThread, on: bus)
        Reading.addListener(self, { _, _, _ in self.count += 1 }, executeOn: .taskThread, on: bus)  // RACE
    }
}

func registerRacingHandlers(bus: EventBus, processor: Processor) {
    var count = 0
    let tally = Tally()
    bus.listen(Reading.self, executeOn: .taskThread) { _, _ in count += 1 }  // RACE
    bus.listen(Reading.self, executeOn: .synchronous) { _, _ in tally.count += 1 }  // RACE
    Reading.addListener(tally, { _, _, _ in count += 1 }, on: bus)  // RACE
    Reading.addListener(tally, Tally.onReading, on: bus)  // RACE
    processor.addEventCallback({ (_: Reading, _, _) in count += 1 }, forEventType: Reading.self)  // RACE
    bus.listen(Reading.self) { (_: Reading, _: EventMetadata) throws in count += 1 }  // RACE
    bus.subscribe(EventChannel<Int>(label: "scores"), on: .taskThread) { _ in count += 1 }  // RACE
    bus.subscribe(EventState<Int>(label: "mode"), on: .synchronous) { _ in tally.count += 1 }  // RACE
    bus.listen(Reading.self, executeOn: .queue(DispatchQueue(label: "q"))) { _, _ in count += 1 }  // RACE
    bus.listen(Reading.self, owner: tally) { (owner: Tally, _: Reading) in owner.count += 1 }  // RACE
    bus.register(TallyConsumer())
    print(count)
}
