// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// Issue 12 §3.7: `AllEvents` stands for every type only in a consumer's lists. Asked of a
/// listener or a stream it is a compile error (unavailable overloads); generic code that gets
/// there anyway registers nothing and gets a typed error instead of silently receiving nothing.
@Suite("R1/W1: AllEvents outside a consumer is rejected, not silently empty")
struct CatchAllMisuseTests {
    func listenGenerically<E: Eventable>(_ type: E.Type, on bus: EventBus) -> EventListenerHandle {
        bus.listen(type, executeOn: .synchronous) { _, _ in }
    }

    func streamGenerically<E: Eventable>(_ type: E.Type, on bus: EventBus) -> EventStream<E> {
        bus.events(of: type)
    }

    func listenAsyncGenerically<E: Eventable>(_ type: E.Type, on bus: EventBus) -> EventListenerHandle {
        bus.listenAsync(type) { (_: E) async in }
    }

    @Test("W1 (issue 12 §3.7): listen, async listen and streams of AllEvents report catchAllSubscription")
    func rejected() async {
        let bus = EventBus(label: "catch-all-misuse")
        let errors = CoreRecorder<EventDrivenError>()
        bus.setErrorHandler { errors.append($0) }
        let handle = listenGenerically(AllEvents.self, on: bus)
        #expect(handle.registrationError == .catchAllSubscription(api: "listen"))
        let asyncHandle = listenAsyncGenerically(AllEvents.self, on: bus)
        #expect(asyncHandle.registrationError == .catchAllSubscription(api: "listen"))
        var received = 0
        for await _ in streamGenerically(AllEvents.self, on: bus) { received += 1 }
        #expect(received == 0)
        #expect(
            errors.values == [
                .catchAllSubscription(api: "listen"), .catchAllSubscription(api: "listen"),
                .catchAllSubscription(api: "events(of:)"),
            ])
        #expect(bus.subscriberCount(for: AllEvents.self) == 0)
    }
}
