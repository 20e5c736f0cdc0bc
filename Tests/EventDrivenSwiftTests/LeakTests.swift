// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization
import Testing

/// After heavy use, every bus, thread and listener object is freed.
///
/// `EDS_LEAK_EVENTS` sets the events (default 1,000,000; 100,000 under ThreadSanitizer) and
/// `EDS_LEAK_CYCLES` the listener add/remove cycles (default 10,000).
///
/// For a native leak check, run this suite under LeakSanitizer (part of AddressSanitizer on Linux):
/// `swift test --sanitize=address --scratch-path .build-asan --filter LeakTests`
@Suite("T4/L2/R5: nothing leaks")
struct LeakTests {
    private struct Ping: Eventable { let value: Int }

    private final class Owner: Sendable {
        let hits = Atomic<Int>(0)
        func onPing(_ ping: Ping, _ priority: EventPriority, _ time: DispatchTime) { hits.add(1, ordering: .relaxed) }
    }

    private actor Counter {
        var count = 0
        func add() { count += 1 }
    }

    private final class Receiver: EventThread, @unchecked Sendable {  // no state of its own
        let hits = Atomic<Int>(0)
        override func registerEventListeners() {
            addEventCallback(onPing, forEventType: Ping.self)
        }
        func onPing(_ ping: Ping, _ priority: EventPriority, _ time: DispatchTime) { hits.add(1, ordering: .relaxed) }
    }

    static let events = Stress.environment(
        "EDS_LEAK_EVENTS", default: Stress.isUnderThreadSanitizer ? 100_000 : 1_000_000)
    static let cycles = Stress.environment("EDS_LEAK_CYCLES", default: 10_000)

    @Test("T4/L2/R5: after 1,000,000 events and 10,000 listener add/remove cycles, every object is freed")
    func everythingFreed() async {
        weak var weakBus: EventBus?
        weak var weakThread: Receiver?
        weak var weakOwner: Owner?
        weak var weakCounter: Counter?
        var weakCycleOwners: [WeakBox] = []
        do {
            let bus = EventBus(label: #function)
            weakBus = bus
            let thread = Receiver(bus: bus)
            weakThread = thread
            let owner = Owner()
            weakOwner = owner
            Ping.addListener(owner, Owner.onPing, executeOn: .listenerThread, on: bus)
            let counter = Counter()
            weakCounter = counter
            bus.listen(Ping.self, on: counter) { counter, _ in counter.count += 1 }
            let stream = bus.events(of: Ping.self, bufferingPolicy: .bufferingNewest(16))

            let perBatch = 50_000
            var sent = 0
            while sent < Self.events {
                let batch = min(perBatch, Self.events - sent)
                let first = sent
                // On a thread of its own: 50,000 dispatches would hold one of Swift's pool threads.
                await coreOnPlainThread { for value in first..<first + batch { bus.queue(Ping(value: value)) } }
                sent += batch
                await bus.drain()
            }
            #expect(thread.hits.load(ordering: .relaxed) == Self.events)
            #expect(owner.hits.load(ordering: .relaxed) == Self.events)
            #expect(await counter.count == Self.events)

            // On a thread of its own, as the dispatches above: not one of Swift's pool threads.
            weakCycleOwners = await coreOnPlainThread { () -> [WeakBox] in
                var boxes: [WeakBox] = []
                for cycle in 0..<Self.cycles {
                    let cycleOwner = Owner()
                    if cycle % 1_000 == 0 { boxes.append(WeakBox(cycleOwner)) }
                    let handle: EventListenerHandle
                    switch cycle % 4 {
                    case 0: handle = Ping.addListener(cycleOwner, Owner.onPing, executeOn: .listenerThread, on: bus)
                    case 1: handle = bus.listen(Ping.self, owner: cycleOwner, executeOn: .requesterThread) { _, _ in }
                    case 2:
                        handle = bus.listenAsync(Ping.self, owner: cycleOwner) { [weak cycleOwner] _ in _ = cycleOwner }
                    default: handle = thread.addEventCallback(Ping.self) { (_: Ping, _: EventMetadata) in }
                    }
                    if cycle % 100 == 0 { bus.queue(Ping(value: -1)) }
                    handle.cancel()
                }
                return boxes
            }
            await bus.drain()
            #expect(bus.subscriberCount(for: Ping.self) == 4)
            thread.cancel()
            await bus.shutdown()
            _ = stream
        }
        // Async listeners end their consumer task once the bus lets go; nothing announces that.
        #expect(await coreEventually { weakBus == nil && weakCounter == nil })
        #expect(weakBus == nil)
        #expect(weakThread == nil)
        #expect(weakOwner == nil)
        #expect(weakCounter == nil)
        #expect(weakCycleOwners.allSatisfy { $0.object == nil })
    }

    @Test("T4/R5: a bus freed without shutdown frees its threads, listeners and streams")
    func freedWithoutShutdown() async {
        weak var weakBus: EventBus?
        weak var weakCounter: Counter?
        var stream: EventStream<Ping>?
        do {
            let bus = EventBus(label: #function)
            weakBus = bus
            let counter = Counter()
            weakCounter = counter
            bus.listen(Ping.self, on: counter) { counter, _ in counter.add() }
            bus.listen(Ping.self, executeOn: .listenerThread) { _, _ in }
            bus.listenAsync(Ping.self) { _ in }
            stream = bus.events(of: Ping.self)
            for value in 0..<1_000 { bus.queue(Ping(value: value)) }
            await bus.drain()
        }
        #expect(await coreEventually { weakBus == nil && weakCounter == nil })
        var count = 0
        for await _ in stream! { count += 1 }
        #expect(count == 1_000)
    }
}

final class WeakBox: @unchecked Sendable {  // a weak var written once at init, read by the test task only
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}
