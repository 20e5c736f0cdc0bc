// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// The README's first block ("The native vocabulary"), as written, in a namespace: the app form
// that issue 25 asks the README to teach first.
import EventDrivenSwift
import Observation
import Testing

enum ReadmeAppForm {
    struct Reading: Eventable { let celsius: Double }
    enum Kitchen { static let mode = EventState<String>(label: "mode") }

    @MainActor @Observable final class Thermometer {
        var celsius = 0.0
        var mode = "idle"

        init(bus: EventBus) {
            // The owner is held weakly and handed to the closure, which runs on the main actor
            // because it is written there; the listener goes when the model does.
            bus.listen(Reading.self, owner: self) { owner, reading in
                owner.celsius = reading.celsius
            }
        }

        // A state as a stream, from a SwiftUI `.task { await thermometer.follow(bus) }`: the
        // current value first, then each change; the view's task ends it.
        func follow(_ bus: EventBus) async {
            for await mode in bus.values(of: Kitchen.mode) { self.mode = mode }
        }
    }
}

@Suite("Issue 25: the README's app form")
@MainActor
struct ReadmeAppFormTests {
    typealias Reading = ReadmeAppForm.Reading
    typealias Kitchen = ReadmeAppForm.Kitchen

    @Test("the view model follows an event and a state, on the main actor; its task ends the stream")
    func appForm() async {
        let bus = EventBus(label: "readme-app")
        let thermometer = ReadmeAppForm.Thermometer(bus: bus)
        let task = Task { await thermometer.follow(bus) }  // what SwiftUI's `.task` does

        // From anywhere, on any thread:
        await Task.detached {
            Reading(celsius: 21.5).queue(on: bus)
            bus.set(Kitchen.mode, to: "cooking")
        }.value
        await bus.drain()
        #expect(thermometer.celsius == 21.5)
        await Self.until(thermometer, hasMode: "cooking")
        #expect(thermometer.mode == "cooking")
        task.cancel()
        await task.value
    }

    /// Returns once `thermometer.mode` is `mode`: the stream may subscribe after the `set`,
    /// and then gets the current value first.
    static func until(_ thermometer: ReadmeAppForm.Thermometer, hasMode mode: String) async {
        while thermometer.mode != mode {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                withObservationTracking {
                    _ = thermometer.mode
                } onChange: {
                    continuation.resume()
                }
            }
        }
    }
}
