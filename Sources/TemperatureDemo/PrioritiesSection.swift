// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// Section 2: the order of one batch (SPEC D3).

/// An event that only carries the name it was dispatched under.
private struct Labelled: Eventable { let label: String }

func prioritiesSection() async {
    section(
        2, "Priorities: one batch runs stacked events first, then queued ones",
        "While the listener thread is held busy (a semaphore, not a sleep), six events are dispatched;",
        "they wait and are handled as one batch (SPEC D3): the stacked ones first, highest priority",
        "first and newest first within a priority, then the queued ones, highest priority first and",
        "oldest first within a priority.")
    let bus = EventBus.demo("Priorities")
    let turnstile = Turnstile()
    let handled = LockedValue<[String]>([])
    bus.listen(Hold.self, executeOn: .listenerThread) { _, _ in turnstile.hold() }
    bus.listen(Labelled.self, executeOn: .listenerThread) { event, _ in
        handled.withLock { $0.append(event.label) }
    }
    Hold().queue(on: bus)
    await turnstile.entered()
    Labelled(label: "q1(normal)").queue(on: bus, priority: .normal)
    Labelled(label: "s1(normal)").stack(on: bus, priority: .normal)
    Labelled(label: "q2(high)").queue(on: bus, priority: .high)
    Labelled(label: "s2(low)").stack(on: bus, priority: .low)
    Labelled(label: "s3(normal)").stack(on: bus, priority: .normal)
    Labelled(label: "q3(lowest)").queue(on: bus, priority: .lowest)
    turnstile.release()
    await bus.drain()
    print("  dispatched: q1(normal) s1(normal) q2(high) s2(low) s3(normal) q3(lowest)")
    print("  handled:    \(handled.withLock { $0 }.joined(separator: " "))")
    await bus.shutdown()
    printStatistics(of: bus, ["delivered": "the Hold event, then the six labelled events"])
}
