// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// Issue 14: every receiver kind consults the bus's lifecycle at the one registration point, so
/// a registration after shutdown ends at once, whatever its kind.
@Suite("R5 (issue 14): a registration after shutdown ends at once, for every receiver kind")
struct RegistrationAfterShutdownTests {
    private struct Late: Eventable {}

    @Test("listeners on every context, async listeners and EventThread callbacks are inactive")
    func listenersAreInactive() async {
        let bus = EventBus(label: #function)
        await bus.shutdown()
        let handles = [
            bus.listen(Late.self, executeOn: .listenerThread) { _, _ in },
            bus.listen(Late.self, executeOn: .synchronous) { _, _ in },
            bus.listen(Late.self, executeOn: .taskThread) { _, _ in },
            bus.listenAsync(Late.self) { _ in },
        ]
        for handle in handles { #expect(!handle.isActive) }
        #expect(bus.subscriberCount(for: Late.self) == 0)
    }

    @Test("event streams and state streams end without yielding")
    func streamsEnd() async {
        let bus = EventBus(label: #function)
        let state = EventState<Int>(label: "late")
        await bus.shutdown()
        var events = 0
        for await _ in bus.events(of: Late.self) { events += 1 }
        var values = 0
        for await _ in bus.values(of: state) { values += 1 }
        #expect(events == 0 && values == 0)
    }
}
