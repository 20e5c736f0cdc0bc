// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Synchronization
import Testing

/// The README's section "The native vocabulary", compiled against the public API (issue 14), and
/// what it promises checked: each receiver gets each event once, the scheduled event cancelled in
/// time never arrives, and the bus is quiet at the end.
@Suite("Issue 14: the README's native vocabulary")
struct NativeVocabularyTests {
    struct TemperatureEvent: Eventable { let celsius: Double }  // an event: an immutable Sendable value

    @Test("the README's native block runs as it reads")
    func nativeBlock() async throws {
        let seen = LockedValue<[String]>([])
        let bus = EventBus(label: "Kitchen")  // or EventCentral.shared

        // Receive: the handler's context is named, never implied by the closure's shape.
        let reading = bus.listen(TemperatureEvent.self, executeOn: .listenerThread) { event, metadata in
            seen.withLock { $0.append("listener \(event.celsius)") }
        }
        let recent = bus.listen(TemperatureEvent.self, interestedIn: .youngerThan(.seconds(1))) { event, _ in
            seen.withLock { $0.append("fresh \(event.celsius)") }
        }
        let saved = bus.listenAsync(TemperatureEvent.self) { event in  // async: one event at a time, in order
            seen.withLock { $0.append("async \(event.celsius)") }
        }
        let readings = bus.events(of: TemperatureEvent.self)  // a stream: subscribed here, before producing

        // Dispatch: the bus comes `on:` right after what the call is about, before the options.
        TemperatureEvent(celsius: 21).queue(on: bus)
        TemperatureEvent(celsius: 99).stack(on: bus, priority: .highest)
        let later = TemperatureEvent(celsius: 22).schedule(after: .seconds(3600), on: bus)
        bus.dispatchNow(TemperatureEvent(celsius: 23))  // returns once synchronous receivers ran

        // Stop and wait: every handle cancels with cancel().
        later.cancel()
        #expect(later.isCancelled)
        await bus.drain()  // one hop: what was dispatched so far
        reading.cancel()
        recent.cancel()
        saved.cancel()
        try await bus.waitUntilQuiet(timeout: .seconds(30))  // nothing pending anywhere

        var streamed: [Double] = []
        for await event in readings {
            streamed.append(event.celsius)
            if streamed.count == 3 { break }
        }
        #expect(streamed.sorted() == [21, 23, 99])
        let values = seen.withLock { $0 }
        for receiver in ["listener", "fresh", "async"] {
            let got = values.filter { $0.hasPrefix(receiver + " ") }.map { $0.split(separator: " ")[1] }
            #expect(got.sorted() == ["21.0", "23.0", "99.0"], "\(receiver): \(got)")
        }
        #expect(!values.contains { $0.hasSuffix("22.0") })
    }

    @Test("the README's native block, as written, compiles and runs")
    func readmeBlockAsWritten() async throws {
        let bus = EventBus(label: "Kitchen")  // or EventCentral.shared

        // Receive: the handler's context is named, never implied by the closure's shape.
        let reading = bus.listen(TemperatureEvent.self, executeOn: .listenerThread) { event, metadata in
            print(event.celsius, metadata.priority)
        }
        let recent = bus.listen(TemperatureEvent.self, interestedIn: .youngerThan(.seconds(1))) { event, _ in
            print("fresh:", event.celsius)
        }
        let saved = bus.listenAsync(TemperatureEvent.self) { event in  // async: one event at a time, in order
            try await Task.sleep(for: .milliseconds(1))
        }
        let readings = bus.events(of: TemperatureEvent.self)  // a stream: subscribed here, before producing

        // Dispatch: the bus comes `on:` right after what the call is about, before the options.
        TemperatureEvent(celsius: 21).queue(on: bus)
        TemperatureEvent(celsius: 99).stack(on: bus, priority: .highest)
        let later = TemperatureEvent(celsius: 22).schedule(after: .milliseconds(200), on: bus)
        later.cancel()  // before it fires: it never will
        bus.dispatchNow(TemperatureEvent(celsius: 23))  // returns once synchronous receivers ran

        // Wait, then stop: every handle cancels with cancel().
        await bus.drain()  // one hop: what was dispatched so far
        try await bus.waitUntilQuiet(timeout: .seconds(30))  // nothing pending anywhere
        reading.cancel()
        recent.cancel()
        saved.cancel()
        _ = readings
        // Three events reached each of the three handlers; the cancelled one reached no one.
        #expect(bus.statistics.delivered >= 9)
    }
}
