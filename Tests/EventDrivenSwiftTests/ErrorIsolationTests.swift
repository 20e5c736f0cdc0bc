// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

@Suite("R2: error isolation")
struct ErrorIsolationTests {
    private struct Order: Eventable { let value: Int }
    private struct Rejected: Error, CustomStringConvertible {
        let value: Int
        var description: String { "rejected \(value)" }
    }

    @Test(
        "R2: a throwing handler does not stop delivery to other handlers",
        arguments: [DeliveryContext.requesterThread, .listenerThread, .taskThread, .mainActor, .synchronous])
    func othersUnaffected(executeOn: DeliveryContext) async {
        guard executeOn != .mainActor else { return }
        let bus = EventBus(label: #function)
        let errors = coreCollectErrors(on: bus)
        let before = CoreRecorder<Int>()
        let after = CoreRecorder<Int>()
        let thrower = CoreRecorder<Int>()
        bus.listen(Order.self, executeOn: executeOn) { order, _ in before.append(order.value) }
        bus.listen(Order.self, executeOn: executeOn) { (order: Order, _: EventMetadata) throws in
            if order.value % 2 == 0 { throw Rejected(value: order.value) }
            thrower.append(order.value)
        }
        bus.listen(Order.self, executeOn: executeOn) { order, _ in after.append(order.value) }
        for value in 0..<100 { bus.queue(Order(value: value)) }
        await bus.drain()
        #expect(before.count == 100)
        #expect(after.count == 100)
        #expect(Set(thrower.values) == Set(stride(from: 1, to: 100, by: 2)))
        #expect(bus.statistics.failed == 50)
        #expect(errors.count == 50)
        let rejected = errors.values.compactMap { error -> Int? in
            guard error.code == .handlerFailed, let order = error.event as? Order,
                let rejected = error.underlyingError as? Rejected
            else { return nil }
            #expect(order.value == rejected.value)
            return rejected.value
        }
        #expect(Set(rejected) == Set(stride(from: 0, to: 100, by: 2)))
    }

    @Test("R2: an async handler that throws keeps receiving later events")
    func asyncHandlerKeepsGoing() async {
        let bus = EventBus(label: #function)
        let errors = coreCollectErrors(on: bus)
        let seen = CoreRecorder<Int>()
        bus.listenAsync(Order.self) { order in
            seen.append(order.value)
            if order.value < 5 { throw Rejected(value: order.value) }
        }
        for value in 0..<10 { bus.queue(Order(value: value)) }
        await bus.drain()
        #expect(seen.values == Array(0..<10))
        #expect(bus.statistics.failed == 5)
        #expect(errors.count == 5)
    }

    @Test("R2: a throwing EventThread callback does not stop the thread")
    func eventThreadKeepsGoing() async {
        let bus = EventBus(label: #function)
        let errors = coreCollectErrors(on: bus)
        let thread = EventThread(bus: bus)
        let seen = CoreRecorder<Int>()
        thread.addEventCallback(Order.self) { (order: Order, _: EventMetadata) throws in
            if order.value == 3 { throw Rejected(value: 3) }
            seen.append(order.value)
        }
        for value in 0..<6 { bus.queue(Order(value: value)) }
        await bus.drain()
        #expect(seen.values == [0, 1, 2, 4, 5])
        #expect(errors.values.map(\.description).contains { $0.contains("rejected 3") })
        thread.cancel()
    }

    @Test("R2: an actor handler that throws does not stop later deliveries")
    func actorHandler() async {
        actor Sink {
            var values: [Int] = []
        }
        let bus = EventBus(label: #function)
        let sink = Sink()
        bus.listen(Order.self, on: sink) { sink, order in
            if order.value == 0 { throw Rejected(value: 0) }
            sink.values.append(order.value)
        }
        for value in 0..<4 { bus.queue(Order(value: value)) }
        await bus.drain()
        #expect(await sink.values == [1, 2, 3])
        #expect(bus.statistics.failed == 1)
    }
}
