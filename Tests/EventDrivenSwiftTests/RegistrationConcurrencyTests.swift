// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Testing

@Suite("Registration under concurrency (R6)")
struct RegistrationConcurrencyTests {
    @Test("R6: listeners come and go from many threads while others dispatch; a steady listener misses nothing")
    func churnDuringDispatch() async {
        let bus = EventBus(label: "R6")
        let steady = CoreCounter()
        let churned = CoreCounter()
        let steadyHandle = bus.listen(Beat.self, executeOn: .listenerThread) { _, _ in steady.increment() }
        let perProducer = coreUnderThreadSanitizer ? 2_000 : 20_000
        let rounds = coreUnderThreadSanitizer ? 200 : 2_000
        let modes: [DeliveryContext] = [.requesterThread, .listenerThread, .taskThread, .synchronous]
        await coreOnThreads(4) { worker in
            if worker < 2 {
                for index in 0..<perProducer { Beat(value: index).queue(on: bus) }
            } else {
                for round in 0..<rounds {
                    let handle = bus.listen(
                        Beat.self, executeOn: modes[round % modes.count],
                        interestedIn: round.isMultiple(of: 3) ? .latestOnly : .all
                    ) { _, _ in churned.increment() }
                    if round.isMultiple(of: 2) { Beat(value: -1).stack(on: bus) }
                    handle.cancel()
                }
            }
        }
        await bus.drain()
        #expect(steady.count == 2 * perProducer + rounds, "every event reached the steady listener once")
        #expect(bus.subscriberCount(for: Beat.self) == 1, "only the steady listener is left")
        steadyHandle.cancel()
    }

    @Test("R6: handlers subscribe and unsubscribe from inside their own deliveries")
    func registrationFromHandlers() async {
        let bus = EventBus(label: "R6-handlers")
        let innerCalls = CoreCounter()
        let outerCalls = CoreCounter()
        let inner = CoreRecorder<EventListenerHandle>()
        let outer = bus.listen(Beat.self, executeOn: .listenerThread) { event, _ in
            outerCalls.increment()
            // Register one listener per event from inside the handler, and remove the previous one.
            let previous = inner.values.last
            inner.append(
                bus.listen(Echo.self, executeOn: .synchronous) { _, _ in innerCalls.increment() })
            previous?.cancel()
            Echo().queue(on: bus)
        }
        let synchronous = bus.listen(Beat.self, executeOn: .synchronous) { event, _ in
            // A synchronous handler registers and removes on the dispatching thread, mid-dispatch.
            let temporary = bus.listen(Echo.self, executeOn: .synchronous) { _, _ in }
            temporary.cancel()
        }
        await coreOnThreads(2) { worker in
            for index in 0..<500 { Beat(value: worker * 1_000 + index).queue(on: bus) }
        }
        await bus.drain()
        #expect(outerCalls.count == 1_000)
        #expect(innerCalls.count == 1_000, "each echo reached exactly the one inner listener registered for it")
        #expect(bus.subscriberCount(for: Echo.self) == 1)
        outer.cancel()
        synchronous.cancel()
        for handle in inner.values { handle.cancel() }
        #expect(bus.subscriberCount(for: Echo.self) == 0 && bus.subscriberCount(for: Beat.self) == 0)
    }
}

extension RegistrationConcurrencyTests {
    struct Beat: Eventable {
        let value: Int
    }

    struct Echo: Eventable {}
}
