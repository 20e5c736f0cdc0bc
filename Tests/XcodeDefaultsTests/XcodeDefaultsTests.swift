// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// A user's module built with Xcode 26's defaults for new app projects: `-default-isolation
// MainActor`, `NonisolatedNonsendingByDefault` and `InferIsolatedConformances`. Every type
// below is main-actor isolated unless it says `nonisolated`. The README's forms must compile
// here with no warnings, and run.
import EventDrivenSwift
import Observation
import Testing

struct Reading: Eventable {
    let celsius: Double
}

// An EventThread subclass owns its own thread: it is `nonisolated`. The one `@unchecked` left in
// this module: a subclass of an `@unchecked Sendable` class must restate it (a warning
// otherwise), and EventThread, an open class, cannot be checked `Sendable`. No form of
// EventThread's own conformance avoids it (see the commit message); only a design where users
// do not subclass a non-isolated class would.
nonisolated final class ReadingProcessor: EventThread, @unchecked Sendable {  // state is the lock-guarded `seen`
    let seen = LockedValue<[Double]>([])

    override func registerEventListeners() {
        addEventCallback(onReading, forEventType: Reading.self)
    }

    func onReading(_ event: Reading, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        seen.withLock { $0.append(event.celsius) }
    }
}

// A UIEventThread subclass is `nonisolated` and restates `@unchecked Sendable` too, for the same
// reasons as the EventThread subclass above: it overrides EventThread's nonisolated
// `init(bus:)` and `registerEventListeners()`, and without the restatement Swift warns that it
// "must restate inherited '@unchecked Sendable' conformance". Its callbacks run on the main
// actor, so they may touch main-actor state inside `MainActor.assumeIsolated`, which checks it.
nonisolated final class ReadingScreen: UIEventThread, @unchecked Sendable {  // state is the lock-guarded `shown`
    let shown = LockedValue<[Double]>([])

    override func registerEventListeners() {
        addEventCallback(onReading, forEventType: Reading.self)
    }

    func onReading(_ event: Reading, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        let celsius = event.celsius
        MainActor.assumeIsolated { Dashboard.shared.celsius = celsius }
        shown.withLock { $0.append(celsius) }
    }
}

// Main-actor state, as a screen's: main-actor isolated by default.
final class Dashboard {
    static let shared = Dashboard()
    var celsius = 0.0
}

// A view model: main-actor isolated by default.
@Observable final class ReadingViewModel {
    var celsius = 0.0
    @ObservationIgnored private var handle: EventListenerHandle?

    init(bus: EventBus) {
        // No annotation, no `[weak self]`: the closure keeps the main-actor isolation of the code
        // it is written in, and gets the weakly held owner as its first argument.
        handle = bus.listen(Reading.self, owner: self) { owner, event in
            owner.celsius = event.celsius
        }
    }
}

// 5.2's README form, as such an app writes it: a bound method with `executeOn: .listenerThread`.
// The method is main-actor isolated (the default), so it runs on the main actor whatever
// `executeOn` says, the only place the model's state may be touched.
final class LegacyReadingViewModel {
    var temperatures: [Double] = []
    var listenerHandle: EventListenerHandle?

    init(bus: EventBus) {
        listenerHandle = Reading.addListener(self, onReading, executeOn: .listenerThread, on: bus)
    }

    func onReading(_ event: Reading, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        temperatures.append(event.celsius)
    }
}

// A value crossing isolation says `nonisolated`: otherwise its `Equatable` conformance is inferred
// main-actor isolated, and a state's value must be usable anywhere.
nonisolated struct PlayerInfo: Equatable, Sendable {
    let health: Int
}

enum GameStates {
    static let player = EventState<PlayerInfo>(label: "Player")
}

@Suite("U2: the README's forms under Xcode 26's defaults")
struct XcodeDefaultsTests {
    @Test("an EventThread subclass receives events in order")
    func eventThread() async {
        let bus = EventBus(label: "xcode-thread")
        let processor = ReadingProcessor(bus: bus)
        for value in 0..<10 { Reading(celsius: Double(value)).queue(on: bus) }
        await bus.drain()
        #expect(processor.seen.withLock { $0 } == (0..<10).map(Double.init))
        processor.cancel()
    }

    @Test("a UIEventThread subclass receives events on the main actor, in order")
    func uiEventThread() async {
        let bus = EventBus(label: "xcode-ui-thread")
        let screen = ReadingScreen(bus: bus)
        for value in 0..<5 { Reading(celsius: Double(value)).queue(on: bus) }
        await bus.drain()  // awaiting frees the main actor: the main queue delivers meanwhile
        #expect(screen.shown.withLock { $0 } == (0..<5).map(Double.init))
        #expect(Dashboard.shared.celsius == 4)
        screen.cancel()
    }

    @Test("a view model's listener runs on the main actor")
    func viewModel() async {
        let bus = EventBus(label: "xcode-model")
        let model = ReadingViewModel(bus: bus)
        Reading(celsius: 21.5).queue(on: bus)
        await bus.drain()
        #expect(model.celsius == 21.5)
    }

    @Test("5.2's bound method with executeOn: .listenerThread runs on the main actor, in order")
    func legacyViewModel() async {
        let bus = EventBus(label: "xcode-legacy-model")
        let model = LegacyReadingViewModel(bus: bus)
        for value in [1.0, 2.0, 3.0] { Reading(celsius: value).queue(on: bus) }
        await bus.drain()
        #expect(model.listenerHandle?.registrationError == nil)
        #expect(model.temperatures == [1.0, 2.0, 3.0])
        model.listenerHandle?.cancel()
    }

    @Test("a stream consumed in a task, as in a SwiftUI .task")
    func streamInTask() async {
        let bus = EventBus(label: "xcode-stream")
        let readings = bus.events(of: Reading.self)  // subscribed here, before producing
        let consumer = Task {
            var seen: [Double] = []
            for await reading in readings {
                seen.append(reading.celsius)
                if seen.count == 3 { break }
            }
            return seen
        }
        for value in [1.0, 2.0, 3.0] { Reading(celsius: value).queue(on: bus) }
        #expect(await consumer.value == [1.0, 2.0, 3.0])
    }

    @Test("a state replays its current value and skips equal ones")
    func state() async {
        let bus = EventBus(label: "xcode-state")
        bus.set(GameStates.player, to: PlayerInfo(health: 100))
        let values = bus.values(of: GameStates.player)
        let consumer = Task {
            var seen: [Int] = []
            for await value in values {
                seen.append(value.health)
                if seen.count == 2 { break }
            }
            return seen
        }
        bus.set(GameStates.player, to: PlayerInfo(health: 100))  // equal: skipped
        bus.set(GameStates.player, to: PlayerInfo(health: 80))
        #expect(await consumer.value == [100, 80])
        #expect(bus.value(of: GameStates.player) == PlayerInfo(health: 80))
    }
}
