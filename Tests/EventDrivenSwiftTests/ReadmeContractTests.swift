// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation  // the README's `TimeInterval`
import Testing

// The code of the original README's sections "Defining an Event", "Dispatching", "Scheduled
// Dispatching", "EventThread", "Observing an EventThread", "Reciprocal Events", "UIEventThread",
// "EventListener" and the three interest sections, compiled against this library.
//
// It is kept as the README writes it, inside a namespace (so its names cannot collide with other
// tests), except for:
// - Apple-only parts: `ObservableObject` is dropped and `@Published` becomes `@ThreadSafeSemaphore`
//   (which also needs an initial value, as `@Published` would have);
// - evident typos: `enum TemperatureRatingEvent` with stored properties is a `struct`; `=` for `:`
//   in its initializer; `fromTemperature(_:)` is called without its label, so it is declared so;
//   `TemperatureRating` is used by the reciprocal event, so it lives beside it rather than inside
//   the processor;
// - Swift 6: a subclass of an `@unchecked Sendable` class must restate the conformance, or the
//   compiler warns "must restate inherited '@unchecked Sendable' conformance".
extension ReadmeContractTests {
    // MARK: Defining an Event

    struct TemperatureEvent: Eventable {
        var temperatureInCelsius: Float
    }

    /// An Enum to map a Temperature value onto a Rating
    enum TemperatureRating: String {
        case belowFreezing = "Below Freezing"
        case freezing = "Freezing"
        case reallyCold = "Really Cold"
        case cold = "Cold"
        case chilly = "Chilly"
        case warm = "Warm"
        case hot = "Hot"
        case reallyHot = "Really Hot"
        case boiling = "Boiling"
        case aboveBoiling = "Steam"

        static func fromTemperature(_ temperatureInCelsius: Float) -> TemperatureRating {
            if temperatureInCelsius < 0 {
                return .belowFreezing
            } else if temperatureInCelsius == 0 {
                return .freezing
            } else if temperatureInCelsius < 5 {
                return .reallyCold
            } else if temperatureInCelsius < 10 {
                return .cold
            } else if temperatureInCelsius < 16 {
                return .chilly
            } else if temperatureInCelsius < 22 {
                return .warm
            } else if temperatureInCelsius < 25 {
                return .hot
            } else if temperatureInCelsius < 100 {
                return .reallyHot
            } else if temperatureInCelsius == 100 {
                return .boiling
            } else {
                return .aboveBoiling
            }
        }
    }

    // MARK: Reciprocal Events

    struct TemperatureRatingEvent: Eventable {
        var temperatureInCelsius: Float
        var temperatureRating: TemperatureRating
    }

    // MARK: Observing an EventThread

    protocol TemperatureProcessorObserver: AnyObject {
        func onTemperatureEvent(temperatureInCelsius: Float)
    }

    // MARK: EventThread

    // Restated for Swift 6: its state is in @ThreadSafeSemaphore properties.
    class TemperatureProcessor: EventThread, @unchecked Sendable {
        /// Register our Event Listeners for this EventThread
        override func registerEventListeners() {
            addEventCallback(onTemperatureEvent, forEventType: TemperatureEvent.self)
        }

        /// The last temperature received.
        @ThreadSafeSemaphore public var temperatureInCelsius: Float = Float.zero
        /// The rating of the last temperature received.
        @ThreadSafeSemaphore public var temperatureRating: TemperatureRating = .freezing

        /// Define our Callback Function to process received TemperatureEvent Events
        func onTemperatureEvent(_ event: TemperatureEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            temperatureInCelsius = event.temperatureInCelsius
            temperatureRating = TemperatureRating.fromTemperature(event.temperatureInCelsius)

            /// Notify any Observers...
            withObservers { (observer: TemperatureProcessorObserver) in
                observer.onTemperatureEvent(temperatureInCelsius: event.temperatureInCelsius)
            }

            /// Dispatch our Reciprocal Event...
            TemperatureRatingEvent(
                temperatureInCelsius: temperatureInCelsius,
                temperatureRating: temperatureRating
            ).queue()
        }
    }

    // MARK: UIEventThread

    // Restated for Swift 6, as above.
    class TemperatureDisplay: UIEventThread, @unchecked Sendable {
        /// The temperatures shown, in order.
        @ThreadSafeSemaphore public var shown: [Float] = []
        /// Whether each callback ran on the main queue.
        @ThreadSafeSemaphore public var onMainQueue: [Bool] = []

        override func registerEventListeners() {
            addEventCallback(onTemperatureRatingEvent, forEventType: TemperatureRatingEvent.self)
        }

        func onTemperatureRatingEvent(
            _ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
        ) {
            _shown.withLock { $0.append(event.temperatureInCelsius) }
            _onMainQueue.withLock {
                $0.append(DispatchQueue.getSpecific(key: ReadmeContractTests.mainQueueKey) == true)
            }
        }
    }

    // MARK: EventListener

    // Swift 6 asks a listener whose bound methods run on other threads to be Sendable; its
    // state is @ThreadSafeSemaphore, as the README's EventThread is.
    class TemperatureRatingViewModel: @unchecked Sendable {
        @ThreadSafeSemaphore var temperatureInCelsius: Float = 0
        @ThreadSafeSemaphore var temperatureRating: TemperatureRating = .freezing

        var listenerHandle: EventListenerHandling?

        internal func onTemperatureRatingEvent(
            _ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
        ) {
            temperatureInCelsius = event.temperatureInCelsius
            temperatureRating = event.temperatureRating
        }

        init() {
            // Let's register our Event Listener Callback!
            listenerHandle = TemperatureRatingEvent.addListener(self, onTemperatureRatingEvent)
        }
    }

    class ThreadListenerViewModel: TemperatureRatingViewModel, @unchecked Sendable {
        override init() {
            super.init()
            listenerHandle?.cancel()
            listenerHandle = TemperatureRatingEvent.addListener(
                self, onTemperatureRatingEvent, executeOn: .listenerThread)
        }
    }

    class TaskListenerViewModel: TemperatureRatingViewModel, @unchecked Sendable {
        override init() {
            super.init()
            listenerHandle?.cancel()
            listenerHandle = TemperatureRatingEvent.addListener(self, onTemperatureRatingEvent, executeOn: .taskThread)
        }
    }

    // MARK: EventListener with Latest-Only Interest

    class LatestOnlyViewModel: TemperatureRatingViewModel, @unchecked Sendable {
        override init() {
            super.init()
            listenerHandle?.cancel()
            listenerHandle = TemperatureRatingEvent.addListener(
                self, onTemperatureRatingEvent, interestedIn: .latestOnly)
        }
    }

    // MARK: EventListener with Maximum Age Interest

    class MaximumAgeViewModel: TemperatureRatingViewModel, @unchecked Sendable {
        override init() {
            super.init()
            listenerHandle?.cancel()
            listenerHandle = TemperatureRatingEvent.addListener(
                self, onTemperatureRatingEvent, interestedIn: .youngerThan, maximumAge: 1 * 1_000_000_000)
        }
    }

    // MARK: EventListener with Custom Event Filtering Interest

    class CustomFilterViewModel: TemperatureRatingViewModel, @unchecked Sendable {
        internal func onTemperatureRatingEventFilter(
            _ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
        ) -> Bool {
            // If the Temperature is above 50 Degrees, this Listener is not interested in it!
            if event.temperatureInCelsius > 50 { return false }
            return true  // If the Temperature is NOT above 50 Degrees, the Listener IS interested in it!
        }

        override init() {
            super.init()
            listenerHandle?.cancel()
            listenerHandle = TemperatureRatingEvent.addListener(
                self, onTemperatureRatingEvent, interestedIn: .custom, customFilter: onTemperatureRatingEventFilter)
        }
    }

    /// An observer, as a view would be.
    final class Thermometer: TemperatureProcessorObserver, @unchecked Sendable {  // state is @ThreadSafeSemaphore
        @ThreadSafeSemaphore var readings: [Float] = []
        /// Signalled after each reading, from the processor's thread.
        let arrived = DispatchSemaphore(value: 0)
        func onTemperatureEvent(temperatureInCelsius: Float) {
            _readings.withLock { $0.append(temperatureInCelsius) }
            arrived.signal()
        }
    }

    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
}

/// These use ``EventCentral/shared``, as the README does; the event types are this file's own.
/// `.serialized`, since they share the README's event types on the shared bus.
@Suite("README contract (E1, D1, S1, T1, T5, T6, L1–L7)", .serialized)
struct ReadmeContractTests {
    @Test("README: Defining, Dispatching and EventThread: the processor rates a queued temperature")
    func eventThreadStory() async {
        let temperatureProcessor = TemperatureProcessor()
        let thermometer = Thermometer()
        temperatureProcessor.addObserver(thermometer)
        #expect(temperatureProcessor.temperatureInCelsius == 0)
        #expect(temperatureProcessor.temperatureRating == .freezing)
        let viewModel = TemperatureRatingViewModel()

        let temperatureEvent = TemperatureEvent(temperatureInCelsius: 23.25)
        temperatureEvent.queue()
        await EventCentral.shared.drain()
        #expect(temperatureProcessor.temperatureInCelsius == 23.25)
        #expect(temperatureProcessor.temperatureRating == .hot)

        TemperatureEvent(temperatureInCelsius: 25.5).queue(priority: .highest)
        await EventCentral.shared.drain()
        #expect(temperatureProcessor.temperatureInCelsius == 25.5)
        #expect(temperatureProcessor.temperatureRating == .reallyHot)
        #expect(thermometer.readings == [23.25, 25.5], "Observing an EventThread")

        // Reciprocal Events: the view model hears the processor's rating.
        await EventCentral.shared.drain()
        #expect(viewModel.temperatureInCelsius == 25.5)
        #expect(viewModel.temperatureRating == .reallyHot)

        temperatureEvent.stack()
        temperatureEvent.stack(priority: .highest)
        await EventCentral.shared.drain()
        await EventCentral.shared.drain()
        #expect(thermometer.readings == [23.25, 25.5, 23.25, 23.25])
        #expect(viewModel.temperatureRating == .hot)

        viewModel.listenerHandle?.cancel()
        temperatureProcessor.cancel()
    }

    @Test("README: Scheduled Dispatching: scheduleQueue and scheduleStack dispatch once due")
    func scheduledDispatching() async {
        let temperatureProcessor = TemperatureProcessor()
        let thermometer = Thermometer()
        temperatureProcessor.addObserver(thermometer)
        let temperatureEvent = TemperatureEvent(temperatureInCelsius: 4)
        // The README waits 4 seconds; a few milliseconds show the same thing. The observer's
        // semaphore says when the processor's callback has run, on the processor's own thread.
        let due = DispatchTime.now() + TimeInterval().advanced(by: 0.02)
        temperatureEvent.scheduleQueue(at: due, priority: .highest)
        await coreWait(thermometer.arrived)
        #expect(thermometer.readings == [4])
        #expect(temperatureProcessor.temperatureRating == .reallyCold)
        temperatureEvent.scheduleStack(at: DispatchTime.now() + TimeInterval().advanced(by: 0.01), priority: .highest)
        await coreWait(thermometer.arrived)
        #expect(thermometer.readings == [4, 4])
        temperatureProcessor.cancel()
    }

    @Test("README: UIEventThread callbacks run on the main actor")
    @MainActor
    func uiEventThread() async {
        _ = ReadmeContractTests.mainQueueKey
        let display = TemperatureDisplay()
        TemperatureRatingEvent(temperatureInCelsius: 30, temperatureRating: .reallyHot).queue()
        TemperatureRatingEvent(temperatureInCelsius: 31, temperatureRating: .reallyHot).queue()
        await EventCentral.shared.drain()
        #expect(display.shown == [30, 31])
        #expect(display.onMainQueue == [true, true])
        display.cancel()
    }

    @Test("README: EventListener on .listenerThread and .taskThread, and listenerHandle.cancel()")
    func listenerModes() async {
        let onThread = ThreadListenerViewModel()
        let onTask = TaskListenerViewModel()
        TemperatureRatingEvent(temperatureInCelsius: 12, temperatureRating: .chilly).queue()
        await EventCentral.shared.drain()
        #expect(onThread.temperatureRating == .chilly && onTask.temperatureRating == .chilly)
        onThread.listenerHandle?.cancel()
        onTask.listenerHandle?.cancel()
        TemperatureRatingEvent(temperatureInCelsius: 2, temperatureRating: .reallyCold).queue()
        await EventCentral.shared.drain()
        #expect(onThread.temperatureInCelsius == 12 && onTask.temperatureInCelsius == 12)
    }

    @Test("README: a freed view model's listener is unregistered automatically")
    func listenerLifetime() async {
        let before = EventCentral.shared.subscriberCount(for: TemperatureRatingEvent.self)
        var viewModel: TemperatureRatingViewModel? = TemperatureRatingViewModel()
        #expect(EventCentral.shared.subscriberCount(for: TemperatureRatingEvent.self) == before + 1)
        // The README registers the bound method `onTemperatureRatingEvent`, which keeps the view
        // model alive until the handle is removed (see the unapplied-method overload).
        viewModel?.listenerHandle?.cancel()
        weak let weakViewModel = viewModel
        viewModel = nil
        #expect(weakViewModel == nil)
        #expect(EventCentral.shared.subscriberCount(for: TemperatureRatingEvent.self) == before)
    }

    @Test("README: Latest-Only interest skips a backlog")
    func latestOnlyInterest() async throws {
        let gate = CoreGate()
        let created = CoreRecorder<CountingLatestOnlyViewModel>()
        let hold = EventCentral.shared.listen(Hold.self, executeOn: .listenerThread) { _, _ in gate.block() }
        // Created inside a listener-thread handler, the README's default `.requesterThread`
        // listener delivers on that same thread, behind the gate.
        let create = EventCentral.shared.listen(Create.self, executeOn: .listenerThread) { _, _ in
            created.append(CountingLatestOnlyViewModel())
        }
        Create().queue()
        await EventCentral.shared.drain()
        let viewModel = try #require(created.values.first)
        Hold().queue()
        await gate.waitUntilEntered()
        for reading in [10, 11, 12, 13] as [Float] {
            TemperatureRatingEvent(temperatureInCelsius: reading, temperatureRating: .chilly).queue()
        }
        gate.open()
        await EventCentral.shared.drain()
        #expect(viewModel.temperatureInCelsius == 13)
        #expect(viewModel.calls == 1, "of the four pending events only the newest ran")
        hold.cancel()
        create.cancel()
        viewModel.listenerHandle?.cancel()
    }

    @Test("README: Maximum Age interest delivers events younger than a second")
    func maximumAgeInterest() async {
        let viewModel = MaximumAgeViewModel()
        TemperatureRatingEvent(temperatureInCelsius: 18, temperatureRating: .warm).queue()
        await EventCentral.shared.drain()
        #expect(viewModel.temperatureRating == .warm)
        viewModel.listenerHandle?.cancel()
    }

    @Test("README: Custom Event Filtering ignores temperatures above 50")
    func customFilterInterest() async {
        let viewModel = CustomFilterViewModel()
        TemperatureRatingEvent(temperatureInCelsius: 40, temperatureRating: .reallyHot).queue()
        TemperatureRatingEvent(temperatureInCelsius: 60, temperatureRating: .reallyHot).queue()
        await EventCentral.shared.drain()
        #expect(viewModel.temperatureInCelsius == 40)
        viewModel.listenerHandle?.cancel()
    }
}

extension ReadmeContractTests {
    struct Hold: Eventable {}
    struct Create: Eventable {}

    /// Counts how often the README's callback runs.
    final class CountingLatestOnlyViewModel: LatestOnlyViewModel, @unchecked Sendable {  // @ThreadSafeSemaphore state
        @ThreadSafeSemaphore var calls = 0

        override func onTemperatureRatingEvent(
            _ event: TemperatureRatingEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
        ) {
            _calls.withLock { $0 += 1 }
            super.onTemperatureRatingEvent(event, priority, dispatchTime)
        }
    }
}
