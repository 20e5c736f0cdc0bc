// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import ServiceContextModule
import Testing

/// A value carried in the service context of a dispatch, to see when it is freed.
private final class CarriedValue: Sendable {}

private enum Carried: ServiceContextKey {
    typealias Value = CarriedValue
}

/// An event small enough to be stored inline (the dispatch path's fastest form).
private struct Small: Eventable {
    let value: Int
}

/// What an observed dispatch adds to an event (its service context, its dispatch number) is
/// freed once every delivery of the event has run, whatever the receiver kind.
@Suite("T4/R5: events dispatched while the bus is observed free what they carry")
struct ObservedEventLeakTests {
    private final class Receiver: EventThread, @unchecked Sendable {  // no state of its own
        override func registerEventListeners() {
            addEventCallback(Small.self) { (_: Small, _: EventMetadata) in }
        }
    }

    enum Kind: String, CaseIterable, Sendable {
        case listenerThread, eventThread, synchronous, taskThread
    }

    @Test("the service context an inline event carries is freed after delivery", arguments: Kind.allCases)
    func contextFreed(kind: Kind) async {
        weak var weakValue: CarriedValue?
        do {
            let bus = EventBus(label: #function, propagatesServiceContext: true)
            var thread: Receiver?
            switch kind {
            case .listenerThread: bus.listen(Small.self, executeOn: .listenerThread) { _, _ in }
            case .eventThread: thread = Receiver(bus: bus)
            case .synchronous: bus.listen(Small.self, executeOn: .synchronous) { _, _ in }
            case .taskThread: bus.listen(Small.self, executeOn: .taskThread) { _, _ in }
            }
            let value = CarriedValue()
            weakValue = value
            var context = ServiceContext.topLevel
            context[Carried.self] = value
            ServiceContext.withValue(context) {
                for index in 0..<10 { bus.queue(Small(value: index)) }
            }
            await bus.drain()
            #expect(bus.statistics.delivered == 10)
            thread?.cancel()
            await bus.shutdown()
        }
        #expect(weakValue == nil)
    }
}
