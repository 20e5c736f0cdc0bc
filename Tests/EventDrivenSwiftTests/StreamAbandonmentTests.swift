// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// When a stream's buffered events count as discarded, as the Guarantees article says: once the
/// stream is freed (leaving a `for await` loop with `break` while the stream is still held does
/// not abandon it), and after shutdown without a dead letter, the dead-letter streams having ended.
@Suite("R4/R5: abandoning an event stream")
struct StreamAbandonmentTests {
    private struct Reading: Eventable { let value: Int }

    @Test("break leaves the rest buffered while the stream is held; freeing it discards the rest")
    func breakThenFree() async {
        let bus = EventBus(label: "stream-break")
        var stream: EventStream<Reading>? = bus.events(of: Reading.self)
        for value in 0..<5 { bus.queue(Reading(value: value)) }
        await bus.drain()
        for await _ in stream! { break }
        #expect(bus.statistics.delivered == 1)
        #expect(bus.statistics.discarded == 0, "still buffered: the stream is held")
        stream = nil
        #expect(bus.statistics.discarded == 4)
        await bus.shutdown()
    }

    @Test("a stream freed after shutdown counts its buffered events as discarded, without dead letters")
    func freedAfterShutdown() async {
        let bus = EventBus(label: "stream-after-shutdown")
        let letters = bus.deadLetters()
        var stream: EventStream<Reading>? = bus.events(of: Reading.self)
        for value in 0..<5 { bus.queue(Reading(value: value)) }
        await bus.shutdown()
        var posted = 0
        for await _ in letters { posted += 1 }  // ends: the shutdown has returned
        #expect(stream != nil)
        stream = nil
        #expect(bus.statistics.discarded == 5)
        #expect(posted == 0, "the dead-letter stream ended before the stream was freed")
    }
}
