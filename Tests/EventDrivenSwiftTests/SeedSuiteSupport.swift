// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

// What the SeedSuite files share: they port the test suites of EventDrivenSwift 5.2, Causality
// and SwiftEventBus to our public API, keeping only what no other test here checks.

/// A tagged event; the tag `"gate"` makes ``seedListen(on:_:gate:log:)``'s handler hold its receiver.
struct SeedTagged: Eventable { let tag: String }

/// A numbered event.
struct SeedNumbered: Eventable { let n: Int }

/// The README's batch, dispatched while the receiver is held, and the order D3 gives it.
enum SeedReadmeBatch {
    static let handled = ["s3", "s1", "s2", "q2", "q1", "q3"]

    static func dispatch(on bus: EventBus) {
        SeedTagged(tag: "q1").queue(on: bus, priority: .normal)
        SeedTagged(tag: "s1").stack(on: bus, priority: .normal)
        SeedTagged(tag: "q2").queue(on: bus, priority: .high)
        SeedTagged(tag: "s2").stack(on: bus, priority: .low)
        SeedTagged(tag: "s3").stack(on: bus, priority: .normal)
        SeedTagged(tag: "q3").queue(on: bus, priority: .lowest)
    }
}

/// Listens for ``SeedTagged`` in `context`: the tag `"gate"` blocks in `gate`, any other is logged.
@discardableResult
func seedListen(
    on bus: EventBus, _ context: DeliveryContext, gate: CoreGate, log: CoreRecorder<String>
) -> EventListenerHandle {
    bus.listen(SeedTagged.self, executeOn: context) { event, _ in
        if event.tag == "gate" { gate.block() } else { log.append(event.tag) }
    }
}

/// An EventThread with no callbacks of its own, for listeners registered with `.thread(_:)`.
final class SeedThread: EventThread, @unchecked Sendable {  // no state of its own
    override func registerEventListeners() {}
}

/// A SwiftEventBus consumer that keeps what it consumes, and writes its name in `order` if given.
final class SeedConsumer: EventConsumer, Sendable {
    let willConsume: [any Eventable.Type]
    let excludeList: [any Eventable.Type]
    let name: String
    let order: CoreRecorder<String>?
    let consumed = CoreRecorder<any Eventable>()

    init(
        _ willConsume: [any Eventable.Type], excluding excludeList: [any Eventable.Type] = [], name: String = "",
        order: CoreRecorder<String>? = nil
    ) {
        self.willConsume = willConsume
        self.excludeList = excludeList
        self.name = name
        self.order = order
    }

    func consume(_ event: any Eventable) {
        consumed.append(event)
        order?.append(name)
    }

    var last: (any Eventable)? { consumed.values.last }
}

/// SwiftEventBus's test events.
struct SeedStubEvent: Eventable, Equatable {}
struct SeedAnotherStubEvent: Eventable, Equatable {}
struct SeedAlternativeStubEvent: Eventable, Equatable {}
