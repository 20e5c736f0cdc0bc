// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

private struct Unread: Eventable {
    let number: Int
}

private struct Busy: Eventable {}

@Suite("waitUntilQuiet and unread streams (issue 26, item 10; SPEC A3)")
struct QuietStreamTests {
    @Test("events waiting unread in a stream do not keep the bus from being quiet, as documented")
    func unreadStreamDoesNotHang() async throws {
        let bus = EventBus(label: "quiet.unread")
        let stream = bus.events(of: Unread.self)
        for number in 0..<1_000 { bus.queue(Unread(number: number)) }
        try await bus.waitUntilQuiet(timeout: .seconds(30))
        withExtendedLifetime(stream) {}
        await bus.shutdown()
    }

    @Test("a wait that times out counts the events unread in streams")
    func timeoutCountsUnreadStreamEvents() async throws {
        let bus = EventBus(label: "quiet.timeout")
        let stream = bus.events(of: Unread.self)
        for number in 0..<1_000 { bus.queue(Unread(number: number)) }
        let gate = CoreGate()
        bus.listen(Busy.self, executeOn: .listenerThread) { _, _ in gate.block() }
        bus.queue(Busy())
        await gate.waitUntilEntered()
        let error = await #expect(throws: EventBusNotQuietError.self) {
            try await bus.waitUntilQuiet(timeout: .milliseconds(50))
        }
        #expect(error?.unreadStreamEvents == 1_000)
        #expect(error?.description.contains("1000 events unread in streams") == true)
        gate.open()
        var taken = 0
        for await _ in stream {
            taken += 1
            if taken == 1_000 { break }
        }
        #expect(taken == 1_000)
        await bus.shutdown()
    }
}
