// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

/// Edge cases that porting the three seeds' suites suggested and no other test covered: a
/// stream's order against priorities, and deliveries waiting when a listener's owner goes.
@Suite("Seed suite: edge cases")
struct SeedSuiteEdgeTests {
    @Test("A1: a stream takes events in dispatch order; priorities and stack do not reorder it")
    func streamIgnoresPriority() async {
        let bus = EventBus(label: "seed-edge-stream")
        let stream = bus.events(of: SeedTagged.self)
        SeedTagged(tag: "a").queue(on: bus, priority: .lowest)
        SeedTagged(tag: "b").stack(on: bus, priority: .highest)
        SeedTagged(tag: "c").queue(on: bus, priority: .high)
        var received: [String] = []
        for await event in stream {
            received.append(event.tag)
            if received.count == 3 { break }
        }
        #expect(received == ["a", "b", "c"])
        await bus.shutdown()
    }

    @Test("L2/R1: deliveries waiting when a weak owner is freed never run and count as ownerReleased")
    func ownerFreedWithDeliveriesWaiting() async {
        let bus = EventBus(label: "seed-edge-owner-pending")
        let thread = SeedThread(bus: bus)
        let calls = CoreCounter()
        let gate = CoreGate()
        seedListen(on: bus, .thread(thread), gate: gate, log: CoreRecorder())
        weak var weakOwner: Owner?
        do {
            let owner = Owner(calls: calls)
            weakOwner = owner
            Ping.addListener(owner, Owner.onPing, executeOn: .thread(thread), on: bus)
            SeedTagged(tag: "gate").queue(on: bus)
            await gate.waitUntilEntered()
            for n in 0..<3 { Ping(n: n).queue(on: bus) }
        }
        #expect(weakOwner == nil)
        gate.open()
        await bus.drain()
        #expect(calls.count == 0)
        #expect(bus.statistics.ownerReleased == 3)
        _ = thread.cancel()
        await bus.shutdown()
    }
}

extension SeedSuiteEdgeTests {
    struct Ping: Eventable { let n: Int }

    /// An owner whose method is registered unapplied, so the listener holds it weakly.
    final class Owner: Sendable {
        let calls: CoreCounter

        init(calls: CoreCounter) { self.calls = calls }

        func onPing(_ event: Ping, _ priority: EventPriority, _ dispatchTime: DispatchTime) { calls.increment() }
    }
}
