// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

@Suite("Misuse is reported, never silent (L2, L6, L7, T4, R5)")
struct MisuseTests {
    @Test("L2: addListener with a nil owner registers nothing and reports .nilOwner")
    func nilOwner() {
        let bus = EventBus(label: "misuse-nil")
        let errors = coreCollectErrors(on: bus)
        let handle = Misfire.addListener(nil, { _, _, _ in }, on: bus)
        #expect(handle.registrationError == .nilOwner(eventType: String(reflecting: Misfire.self)))
        #expect(!handle.isActive)
        #expect(bus.subscriberCount(for: Misfire.self) == 0)
        #expect(errors.values == [handle.registrationError!])
        handle.cancel()  // harmless on a failed registration
        Misfire().queue(on: bus)
        #expect(bus.statistics.undelivered == 1)
    }

    @Test("L7: interestedIn: .custom without a customFilter registers nothing and reports .missingCustomFilter")
    func customWithoutFilter() {
        let bus = EventBus(label: "misuse-custom")
        let errors = coreCollectErrors(on: bus)
        let owner = MisuseOwner()
        let handle = Misfire.addListener(owner, { _, _, _ in }, interestedIn: .custom, on: bus)
        #expect(handle.registrationError == .missingCustomFilter(eventType: String(reflecting: Misfire.self)))
        #expect(!handle.isActive)
        #expect(bus.subscriberCount(for: Misfire.self) == 0)
        #expect(errors.count == 1)
    }

    @Test("L6: a negative maximumAge registers nothing and reports .negativeMaximumAge")
    func negativeMaximumAge() {
        let bus = EventBus(label: "misuse-age")
        let errors = coreCollectErrors(on: bus)
        let owner = MisuseOwner()
        let handle = Misfire.addListener(owner, { _, _, _ in }, interestedIn: .youngerThan, maximumAge: -1, on: bus)
        #expect(
            handle.registrationError == .negativeMaximumAge(eventType: String(reflecting: Misfire.self), maximumAge: -1)
        )
        #expect(bus.subscriberCount(for: Misfire.self) == 0)
        #expect(errors.count == 1)
    }

    @Test("L6: .youngerThan with a negative Duration registers nothing and reports .negativeMaximumAge")
    func negativeAgeNativeForm() {
        let bus = EventBus(label: "misuse-age-native")
        let errors = coreCollectErrors(on: bus)
        let handle = bus.listen(Misfire.self, executeOn: .synchronous, interestedIn: .youngerThan(.seconds(-1))) {
            _, _ in
        }
        #expect(
            handle.registrationError
                == .negativeMaximumAge(eventType: String(reflecting: Misfire.self), maximumAge: -1_000_000_000))
        #expect(!handle.isActive)
        #expect(bus.subscriberCount(for: Misfire.self) == 0)
        #expect(errors.count == 1)
        let unlimited = bus.listen(Misfire.self, executeOn: .synchronous, interestedIn: .youngerThan(.zero)) { _, _ in }
        #expect(unlimited.registrationError == nil, "zero means no limit")
        unlimited.cancel()
    }

    @Test("L7: a .custom filter for another event type registers nothing and reports .customFilterEventType")
    func customFilterOfAnotherType() {
        let bus = EventBus(label: "misuse-custom-type")
        let errors = coreCollectErrors(on: bus)
        let handle = bus.listen(
            Misfire.self, executeOn: .synchronous, interestedIn: .custom { (_: OtherMisfire, _) in true }
        ) { _, _ in }
        #expect(
            handle.registrationError
                == .customFilterEventType(
                    eventType: String(reflecting: Misfire.self), filterEventType: String(reflecting: OtherMisfire.self))
        )
        #expect(!handle.isActive)
        #expect(bus.subscriberCount(for: Misfire.self) == 0)
        #expect(errors.count == 1)
    }

    @Test("L7: a .custom filter for a superclass of the listener's event class filters as written")
    func customFilterOfASuperclass() async {
        let bus = EventBus(label: "misuse-custom-superclass")
        let seen = CoreCounter()
        let handle = bus.listen(
            Reading.self, executeOn: .synchronous,
            interestedIn: .custom { (event: Measurement, _) in event.value > 10 }
        ) { _, _ in seen.increment() }
        #expect(handle.registrationError == nil)
        for value in [5, 15, 25] { Reading(value: value).queue(on: bus) }
        await bus.drain()
        #expect(seen.count == 2)
        #expect(bus.statistics.filtered == 1)
        handle.cancel()
    }

    @Test("T4: addEventCallback after cancel() registers nothing and reports .threadCancelled")
    func callbackAfterCancel() {
        let bus = EventBus(label: "misuse-cancelled")
        let errors = coreCollectErrors(on: bus)
        let thread = EventThread(bus: bus)
        thread.cancel()
        let handle = thread.addEventCallback({ (_: Misfire, _, _) in }, forEventType: Misfire.self)
        guard handle.registrationError?.code == .threadCancelled else {
            Issue.record("expected .threadCancelled, got \(String(describing: handle.registrationError))")
            return
        }
        #expect(!handle.isActive)
        #expect(bus.subscriberCount(for: Misfire.self) == 0)
        #expect(errors.count == 1)
    }

    @Test("R5: dispatch after shutdown is refused, reported and counted")
    func dispatchAfterShutdown() async {
        let bus = EventBus(label: "misuse-shutdown")
        let errors = coreCollectErrors(on: bus)
        let seen = CoreCounter()
        let handle = bus.listen(Misfire.self, executeOn: .listenerThread) { _, _ in seen.increment() }
        Misfire().queue(on: bus)
        await bus.shutdown()
        #expect(seen.count == 1, "what was dispatched before shutdown is delivered")
        Misfire().queue(on: bus)
        Misfire().stack(on: bus, priority: .high)
        #expect(bus.statistics.rejected == 2)
        #expect(
            errors.values
                == Array(
                    repeating: .busShutDown(bus: "misuse-shutdown", eventType: String(reflecting: Misfire.self)),
                    count: 2))
        #expect(seen.count == 1)
        #expect(!handle.isActive)
    }
}

extension MisuseTests {
    struct Misfire: Eventable {}
    struct OtherMisfire: Eventable {}

    /// An event class with a subclass: a filter may be written for the superclass.
    class Measurement: Eventable, @unchecked Sendable {  // immutable: one `let`
        let value: Int
        init(value: Int) { self.value = value }
    }
    final class Reading: Measurement, @unchecked Sendable {}  // immutable: its superclass's `let`

    final class MisuseOwner: Sendable {}
}
