// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import ServiceContextModule
import Synchronization
import Testing

@Suite("Adversarial probes: interceptors, @ThreadSafeSemaphore, observers")
struct AdversarialInterceptorsTests {
    @Test("M2/R1: didDeliver is called exactly once per (event, subscriber), matching the statistics by outcome")
    func interceptorSeesEveryOutcomeOnce() async throws {
        let bus = EventBus(label: "p2-outcomes")
        let interceptor = P2OutcomeInterceptor()
        let interceptorHandle = bus.addInterceptor(interceptor)
        let letters = bus.deadLetters()
        let consumer = P2Consumer([P2Tick.self])
        _ = bus.register(consumer)
        let (gate, blocker) = await blockListenerThread(bus)
        let h1 = bus.listen(P2Tick.self, executeOn: .listenerThread, interestedIn: .latestOnly) { _, _ in }
        let h2 = bus.listen(P2Tick.self, executeOn: .synchronous) { (tick: P2Tick, _: EventMetadata) throws in
            if tick.n == 0 { throw P2Failure() }
        }
        let h3 = bus.listen(
            P2Tick.self, executeOn: .taskThread, interestedIn: .custom { (tick: P2Tick, _) in tick.n % 2 == 0 }
        ) { _, _ in }
        let stream = bus.events(of: P2Tick.self, bufferingPolicy: .bufferingNewest(1))
        for n in 0..<4 { P2Tick(n: n).queue(on: bus) }
        P2Other(n: 0).queue(on: bus)  // nobody
        gate.open()
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.n == 3)
        h1.cancel()
        h2.cancel()
        h3.cancel()
        blocker.cancel()
        let ledger = await AccountingLedger.close(bus, letters: letters)
        let s = ledger.statistics
        let outcomes = interceptor.outcomes.withLock { $0 }
        // 4 ticks × 5 subscribers (consumer, latest-only, synchronous, task, stream) + 1 block.
        #expect(ledger.outcomes - s.undelivered == 21, "\(s)")
        #expect(interceptor.total == 21, "\(outcomes)")
        #expect(outcomes["superseded", default: 0] == s.superseded, "\(outcomes) \(s)")
        #expect(outcomes["filtered", default: 0] == s.filtered, "\(outcomes) \(s)")
        #expect(outcomes["dropped", default: 0] == s.dropped, "\(outcomes) \(s)")
        #expect(outcomes["failed", default: 0] == s.failed, "\(outcomes) \(s)")
        #expect(outcomes["delivered", default: 0] == s.delivered, "\(outcomes) \(s)")
        #expect(s.failed == 1 && s.superseded == 3 && s.filtered == 2 && s.dropped == 3 && s.undelivered == 1, "\(s)")
        ledger.expectLettersMatchCounters()
        interceptorHandle.cancel()
        _ = consumer
    }

    @Test("M2: an interceptor that removes itself in didDispatch gets nothing more from that dispatch or later ones")
    func interceptorRemovesItself() async throws {
        let bus = EventBus(label: "p2-selfRemove")
        let interceptor = P2SelfRemovingInterceptor()
        interceptor.handle.withLock { $0 = bus.addInterceptor(interceptor) }
        let seen = CoreCounter()
        let h1 = bus.listen(P2Tick.self, executeOn: .synchronous) { _, _ in seen.increment() }
        let h2 = bus.listen(P2Tick.self, executeOn: .listenerThread) { _, _ in seen.increment() }
        P2Tick(n: 0).queue(on: bus)
        P2Tick(n: 1).queue(on: bus)
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        #expect(seen.count == 4)
        #expect(interceptor.dispatches.count == 1)
        #expect(interceptor.deliveries.count == 0, "a removed interceptor gets nothing from a dispatch under way")
        #expect(interceptor.wrapped.count == 0)
        #expect(bus.interceptors.isEmpty)
        h1.cancel()
        h2.cancel()
        await bus.shutdown()
    }

    @Test(
        "M2: an interceptor removed while a dispatch is held in an earlier interceptor's didDispatch sees nothing of that dispatch"
    )
    func interceptorRemovedWhileDispatchHeld() async throws {
        let bus = EventBus(label: "p2-heldRemove")
        let holder = P2HoldingInterceptor()
        let watcher = P2OutcomeInterceptor()
        let holderHandle = bus.addInterceptor(holder)
        let watcherHandle = bus.addInterceptor(watcher)
        let seen = CoreCounter()
        let h1 = bus.listen(P2Tick.self, executeOn: .listenerThread) { _, _ in seen.increment() }
        let h2 = bus.listen(P2Tick.self, executeOn: .synchronous) { _, _ in seen.increment() }
        let producer = Task.detached { await coreOnPlainThread { P2Tick(n: 0).queue(on: bus) } }
        await holder.gate.waitUntilEntered()
        watcherHandle.cancel()
        holder.gate.open()
        await producer.value
        try await bus.waitUntilQuiet(timeout: .seconds(5))
        #expect(seen.count == 2)
        #expect(watcher.dispatches.count == 0, "removed before its turn in didDispatch")
        #expect(watcher.total == 0 && watcher.wrapped.count == 0, "\(watcher.outcomes.withLock { $0 })")
        h1.cancel()
        h2.cancel()
        holderHandle.cancel()
        await bus.shutdown()
    }

    @Test(
        "T7: copies of a @ThreadSafeSemaphore share storage; withLock is atomic across threads; a throwing body releases the lock"
    )
    func threadSafeSemaphoreEdges() async {
        let box = P2Box()
        let copy = box.wrapperCopy
        copy.wrappedValue = P2Wide(a: 7, b: 7, c: 7, d: 7)
        #expect(box.value == P2Wide(a: 7, b: 7, c: 7, d: 7))
        #expect(throws: P2Failure.self) {
            try box.wrapperCopy.withLock { (_: inout P2Wide) throws(P2Failure) in throw P2Failure() }
        }
        let torn = CoreCounter()
        await coreOnThreads(6) { index in
            for k in 0..<5_000 {
                if index < 3 {
                    box.wrapperCopy.withLock { $0 = P2Wide(a: $0.a + 1, b: $0.b + 1, c: $0.c + 1, d: $0.d + 1) }
                } else if index == 3 {
                    box.value = P2Wide(a: k, b: k, c: k, d: k)
                } else {
                    let read = box.value
                    if !(read.a == read.b && read.b == read.c && read.c == read.d) { torn.increment() }
                }
            }
        }
        #expect(torn.count == 0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            box.wrapperCopy.withLock { $0.a += 0 }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 2) == .success, "the lock is still held")
    }

    @Test(
        "T6: an EventThread's observers: added twice counts once, held weakly, filtered by protocol, removable from withObservers"
    )
    func eventThreadObservers() async {
        let bus = EventBus(label: "p2-observers")
        let thread = AdvHost(bus: bus)
        let first = P2Observer(name: "first")
        let other = P2NotAnObserver()
        thread.addObserver(first)
        thread.addObserver(first)
        thread.addObserver(other)
        var calls: [String] = []
        do {
            let second = P2Observer(name: "second")
            thread.addObserver(second)
            thread.withObservers { (observer: P2ObserverProtocol) in
                calls.append(observer.name)
                thread.removeObserver(first)  // from inside: no deadlock
            }
            #expect(calls == ["first", "second"])
        }
        calls = []
        thread.withObservers { (observer: P2ObserverProtocol) in calls.append(observer.name) }
        #expect(calls.isEmpty, "first was removed and second freed: \(calls)")
        thread.removeObserver(P2Observer(name: "never added"))
        _ = thread.cancel()
        await bus.shutdown()
        _ = other
    }
}
