// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

@Suite("Listeners (L1–L8)")
struct ListenerTests {
    @Test("L1: addListener(owner, callback) with the original's defaults gets event, priority and dispatch time")
    func addListenerDefaults() async {
        let bus = EventBus(label: "L1")
        let owner = PingOwner(seen: CoreRecorder())
        let seen = CoreRecorder<(Int, EventPriority, DispatchTime)>()
        let before = DispatchTime.now()
        let handle: any EventListenerHandling = Ping.addListener(
            owner, { event, priority, dispatchTime in seen.append((event.value, priority, dispatchTime)) }, on: bus)
        Ping(value: 7).queue(on: bus, priority: .high)
        Ping(value: 8).queue(on: bus)
        await bus.drain()
        let values = seen.values
        #expect(values.map(\.0) == [7, 8])
        #expect(values.map(\.1) == [.high, .normal])
        #expect(values.allSatisfy { $0.2 >= before && $0.2 <= DispatchTime.now() })
        handle.cancel()
        Ping(value: 9).queue(on: bus)
        await bus.drain()
        #expect(seen.count == 2, "cancel() stops deliveries")
        #expect(bus.subscriberCount(for: Ping.self) == 0)
    }

    @Test("L2: with an unapplied method the owner is held weakly; once freed, the listener is gone")
    func ownerFreedStopsListener() async {
        let bus = EventBus(label: "L2")
        let seen = CoreRecorder<Int>()
        var owner: PingOwner? = PingOwner(seen: seen)
        weak let weakOwner = owner
        let handle = Ping.addListener(owner!, PingOwner.onPing, executeOn: .listenerThread, on: bus)
        Ping(value: 1).queue(on: bus)
        await bus.drain()
        #expect(handle.isActive)
        owner = nil
        #expect(weakOwner == nil, "the listener does not keep its owner alive")
        #expect(!handle.isActive)
        Ping(value: 2).queue(on: bus)
        Ping(value: 3).queue(on: bus)
        await bus.drain()
        #expect(seen.values == [1])
        #expect(bus.statistics.ownerReleased + bus.statistics.discarded + bus.statistics.undelivered == 2)
        #expect(bus.statistics.ownerReleased >= 1)
        #expect(bus.subscriberCount(for: Ping.self) == 0, "the listener unregistered itself")
    }

    @Test("L2: a bound method (self.onPing) keeps its owner alive until the listener is removed, as documented")
    func boundMethodKeepsOwner() async {
        let bus = EventBus(label: "L2-bound")
        let seen = CoreRecorder<Int>()
        var owner: PingOwner? = PingOwner(seen: seen)
        weak let weakOwner = owner
        var handle: EventListenerHandle? = Ping.addListener(owner!, owner!.onPing, executeOn: .listenerThread, on: bus)
        owner = nil
        #expect(weakOwner != nil, "the bound method captured the owner strongly")
        Ping(value: 1).queue(on: bus)
        await bus.drain()
        #expect(seen.values == [1], "the listener is still alive and delivering")
        handle?.cancel()
        handle = nil
        #expect(weakOwner == nil, "removing the listener releases the owner")
    }

    @Test("L3: .requesterThread from inside an EventThread callback delivers on that thread, in order")
    func requesterInsideEventThread() async {
        let bus = EventBus(label: "L3-thread")
        let thread = RequesterThread(bus: bus)
        Register().queue(on: bus)
        await bus.drain()
        for value in 0..<2_000 { Ping(value: value).queue(on: bus) }
        await bus.drain()
        #expect(thread.values.values == Array(0..<2_000))
        #expect(Set(thread.deliveries.values) == Set(thread.ownThread.values))
        #expect(thread.ownThread.count == 1)
        thread.cancel()
    }

    @Test("L3: .requesterThread from a plain thread delivers in order on one serial context")
    func requesterFromPlainThread() async {
        let bus = EventBus(label: "L3-plain")
        let values = CoreRecorder<Int>()
        let overlap = CoreOverlapProbe()
        let onMain = CoreCounter()
        let handle = await coreOnPlainThread {
            bus.listen(Ping.self) { event, _ in
                overlap.run { values.append(event.value) }
                if Thread.isMainThread { onMain.increment() }
            }
        }
        await coreOnThreads(2) { producer in
            for value in 0..<5_000 where value % 2 == producer { Ping(value: value).queue(on: bus) }
        }
        for value in 5_000..<10_000 { Ping(value: value).queue(on: bus) }
        await bus.drain()
        #expect(values.count == 10_000)
        #expect(Array(values.values.suffix(5_000)) == Array(5_000..<10_000), "one producer's events in order")
        #expect(overlap.maximumOverlap == 1, "one callback at a time")
        #expect(onMain.count == 0)
        handle.cancel()
    }

    @Test("L3: contexts of their own share the global queue's threads and each stays serial and in order")
    func requesterContextsTakeTurns() async {
        // More contexts than cores, each with a stream long enough that its drain hands its
        // thread back and resumes many times: every context must stay one callback at a time,
        // in order, and a listener registered from inside a late callback must join that context.
        let contexts = 8
        let events = 20_000
        let bus = EventBus(label: "L3-turns")
        let values = (0..<contexts).map { _ in CoreRecorder<Int>() }
        let probes = (0..<contexts).map { _ in CoreOverlapProbe() }
        let joined = (0..<contexts).map { _ in CoreCounter() }
        let lateHandles = CoreRecorder<EventListenerHandle>()
        let handles = await coreOnPlainThread {
            (0..<contexts).map { index in
                bus.listen(Ping.self) { event, _ in
                    probes[index].run { values[index].append(event.value) }
                    guard event.value == events / 2 else { return }
                    let late = bus.listen(Ping.self) { event, _ in
                        probes[index].run { if event.value >= events { joined[index].increment() } }
                    }
                    lateHandles.append(late)
                }
            }
        }
        for value in 0..<events { Ping(value: value).queue(on: bus) }
        await bus.drain()
        let more = 1_000
        for value in events..<(events + more) { Ping(value: value).queue(on: bus) }
        await bus.drain()
        for index in 0..<contexts {
            #expect(values[index].values == Array(0..<(events + more)), "context \(index) got every event in order")
            #expect(probes[index].maximumOverlap == 1, "context \(index) ran one callback at a time")
            #expect(joined[index].count == more, "the late listener of context \(index) got the later events")
        }
        for handle in handles + lateHandles.values { handle.cancel() }
    }

    @Test("L3: a listener registered from a context's own callback runs in that context, after the callback")
    func requesterJoinsContextInOrder() async {
        // One context: the late listener's delivery of each event runs right after the first
        // listener's, on the same thread, before the next event's.
        let events = 2_000
        let bus = EventBus(label: "L3-join")
        let outer = CoreRecorder<[UInt]>()
        let inner = CoreRecorder<[UInt]>()
        let lateHandles = CoreRecorder<EventListenerHandle>()
        let handle = await coreOnPlainThread {
            bus.listen(Ping.self) { event, _ in
                outer.append([UInt(event.value), UInt(inner.count), coreThreadID()])
                guard event.value == 0 else { return }
                lateHandles.append(
                    bus.listen(Ping.self) { event, _ in inner.append([UInt(event.value), coreThreadID()]) })
            }
        }
        Ping(value: 0).queue(on: bus)
        await bus.drain()
        for value in 1..<events { Ping(value: value).queue(on: bus) }
        await bus.drain()
        let outerSeen = outer.values
        let innerSeen = inner.values
        #expect(outerSeen.map { $0[0] } == (0..<UInt(events)).map { $0 })
        #expect(innerSeen.map { $0[0] } == (1..<UInt(events)).map { $0 })
        #expect(outerSeen.allSatisfy { $0[1] == max($0[0], 1) - 1 }, "the late listener ran each event right after")
        #expect(zip(outerSeen.dropFirst(), innerSeen).allSatisfy { $0[2] == $1[1] }, "on the thread of the first")
        handle.cancel()
        for late in lateHandles.values { late.cancel() }
    }

    @Test("L4: .listenerThread delivers in order on the bus's one listener thread")
    func listenerThreadInOrder() async {
        let bus = EventBus(label: "L4")
        let values = CoreRecorder<Int>()
        let threads = CoreRecorder<UInt>()
        let first = bus.listen(Ping.self, executeOn: .listenerThread) { event, _ in
            values.append(event.value)
            threads.append(coreThreadID())
        }
        let second = bus.listen(Hold.self, executeOn: .listenerThread) { _, _ in threads.append(coreThreadID()) }
        for value in 0..<10_000 { Ping(value: value).queue(on: bus) }
        Hold().queue(on: bus)
        await bus.drain()
        #expect(values.values == Array(0..<10_000))
        #expect(Set(threads.values).count == 1, "every .listenerThread listener of the bus shares one thread")
        #expect(threads.values.first != coreThreadID())
        first.cancel()
        second.cancel()
    }

    @Test("L4: .taskThread delivers every event exactly once")
    func taskThreadDeliversAll() async {
        let bus = EventBus(label: "L4-task")
        let values = CoreRecorder<Int>()
        let handle = bus.listen(Ping.self, executeOn: .taskThread) { event, _ in values.append(event.value) }
        for value in 0..<1_000 { Ping(value: value).queue(on: bus) }
        await bus.drain()
        #expect(values.values.sorted() == Array(0..<1_000))
        #expect(bus.statistics.delivered == 1_000)
        handle.cancel()
    }

    @Test("L5: .latestOnly with a backlog sees only the newest event and counts the rest as superseded")
    func latestOnly() async {
        let bus = EventBus(label: "L5")
        let gate = CoreGate()
        let seen = CoreRecorder<Int>()
        let gateHandle = bus.listen(Hold.self, executeOn: .listenerThread) { _, _ in gate.block() }
        let handle = bus.listen(Ping.self, executeOn: .listenerThread, interestedIn: .latestOnly) { event, _ in
            seen.append(event.value)
        }
        Hold().queue(on: bus)
        await gate.waitUntilEntered()
        for value in 1...5 { Ping(value: value).queue(on: bus) }
        gate.open()
        await bus.drain()
        #expect(seen.values == [5])
        #expect(bus.statistics.superseded == 4)
        // Without a backlog every event is the latest.
        Ping(value: 6).queue(on: bus)
        await bus.drain()
        Ping(value: 7).stack(on: bus)
        await bus.drain()
        #expect(seen.values == [5, 6, 7])
        gateHandle.cancel()
        handle.cancel()
    }

    @Test("L6: .youngerThan skips events older than maximumAge at delivery; 0 means no limit")
    func youngerThan() async {
        let bus = EventBus(label: "L6")
        let strict = CoreRecorder<Int>()
        let unlimited = CoreRecorder<Int>()
        let generous = CoreRecorder<Int>()
        // Any event is older than one nanosecond by the time it is delivered.
        let strictHandle = bus.listen(Ping.self, executeOn: .listenerThread, interestedIn: .youngerThan, maximumAge: 1)
        {
            event, _ in strict.append(event.value)
        }
        let unlimitedHandle = bus.listen(Ping.self, executeOn: .listenerThread, interestedIn: .youngerThan) {
            event, _ in unlimited.append(event.value)
        }
        let generousHandle = bus.listen(
            Ping.self, executeOn: .listenerThread, interestedIn: .youngerThan, maximumAge: 3_600 * 1_000_000_000
        ) { event, _ in generous.append(event.value) }
        for value in 0..<5 { Ping(value: value).queue(on: bus) }
        await bus.drain()
        #expect(strict.values.isEmpty)
        #expect(bus.statistics.expired == 5)
        #expect(unlimited.values == Array(0..<5))
        #expect(generous.values == Array(0..<5))
        strictHandle.cancel()
        unlimitedHandle.cancel()
        generousHandle.cancel()
    }

    @Test("L7: .custom passes event, priority and dispatch time to the filter and delivers what it accepts")
    func customFilter() async {
        let bus = EventBus(label: "L7")
        let owner = PingOwner(seen: CoreRecorder())
        let filterSaw = CoreRecorder<EventPriority>()
        let handle = Ping.addListener(
            owner, PingOwner.onPing, executeOn: .listenerThread, interestedIn: .custom,
            customFilter: { event, priority, _ in
                filterSaw.append(priority)
                return event.value <= 50
            }, on: bus)
        for value in [10, 60, 50, 51] { Ping(value: value).queue(on: bus, priority: .low) }
        await bus.drain()
        #expect(owner.seen.values == [10, 50])
        #expect(filterSaw.values == [.low, .low, .low, .low])
        #expect(bus.statistics.filtered == 2)
        handle.cancel()
    }

    @Test("L8: cancel() from another thread during delivery skips every delivery not yet started")
    func removeFromAnotherThread() async {
        let bus = EventBus(label: "L8")
        let gate = CoreGate()
        let seen = CoreRecorder<Int>()
        let handle = bus.listen(Ping.self, executeOn: .listenerThread) { event, _ in
            seen.append(event.value)
            if event.value == 0 { gate.block() }
        }
        for value in 0..<10 { Ping(value: value).queue(on: bus) }
        await gate.waitUntilEntered()
        await coreOnPlainThread { handle.cancel() }
        #expect(!handle.isActive)
        gate.open()
        await bus.drain()
        #expect(seen.values == [0], "the delivery in progress finishes; the nine pending ones are skipped")
        #expect(bus.statistics.discarded == 9, "skipped deliveries are counted")
    }

    @Test("L8: cancel() from inside the callback makes a one-shot listener")
    func removeFromInsideCallback() async {
        let bus = EventBus(label: "L8-self")
        let seen = CoreRecorder<Int>()
        let handles = CoreRecorder<EventListenerHandle>()
        let gate = CoreGate()
        let gateHandle = bus.listen(Hold.self, executeOn: .listenerThread) { _, _ in gate.block() }
        Hold().queue(on: bus)
        await gate.waitUntilEntered()
        handles.append(
            bus.listen(Ping.self, executeOn: .listenerThread) { event, _ in
                seen.append(event.value)
                for handle in handles.values { handle.cancel() }
            })
        for value in 0..<10 { Ping(value: value).queue(on: bus) }
        gate.open()
        await bus.drain()
        #expect(seen.values == [0])
        gateHandle.cancel()
    }
}

extension ListenerTests {
    struct Ping: Eventable {
        let value: Int
    }

    struct Hold: Eventable {}

    struct Register: Eventable {}

    /// A listener's owner with a method of the README's callback shape.
    final class PingOwner: @unchecked Sendable {  // its only state is a Sendable recorder
        let seen: CoreRecorder<Int>
        init(seen: CoreRecorder<Int>) { self.seen = seen }

        func onPing(_ event: Ping, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            seen.append(event.value)
        }
    }

    /// Registers a `.requesterThread` listener from inside its own callback.
    final class RequesterThread: EventThread, @unchecked Sendable {  // stored properties are Sendable
        let ownThread = CoreRecorder<UInt>()
        let deliveries = CoreRecorder<UInt>()
        let values = CoreRecorder<Int>()
        let handles = CoreRecorder<EventListenerHandle>()

        override func registerEventListeners() {
            addEventCallback(onRegister, forEventType: Register.self)
        }

        func onRegister(_ event: Register, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            ownThread.append(coreThreadID())
            let handle = Ping.addListener(
                self,
                { [deliveries, values] event, _, _ in
                    deliveries.append(coreThreadID())
                    values.append(event.value)
                }, on: bus)
            handles.append(handle)
        }
    }
}
