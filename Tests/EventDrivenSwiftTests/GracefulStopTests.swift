// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Synchronization
import Testing

private struct Order: Eventable { let id: Int }
private struct Charged: Eventable { let id: Int }
private struct Stored: Eventable { let id: Int }

/// Issue 29 item 1: a graceful stop finishes what the bus accepted, its handlers' follow-ups
/// included, within one deadline; at the deadline the rest is discarded, dead-lettered and counted.
@Suite("R5 (issue 29): a graceful stop that finishes what it accepted")
struct GracefulStopTests {
    /// Where the second hop of a three-hop pipeline runs: its handler dispatches the third hop
    /// while the bus stops.
    enum Relay: String, CaseIterable, Sendable {
        case synchronous, listenerThread, taskThread, async, eventThread
    }

    @Test(
        "follow-ups dispatched by every kind of handler during the stop are handled; an outsider is refused",
        arguments: Relay.allCases)
    func followUpsFlowOutsidersRefused(relay: Relay) async {
        let bus = EventBus(label: "stop-\(relay.rawValue)")
        let gate = CoreGate()
        let stored = CoreCounter()
        let count = 20
        // The first hop, held on the listener thread until the stop has begun.
        bus.listen(Order.self, executeOn: .listenerThread) { order, _ in
            if order.id == 0 { gate.block() }
            bus.queue(Charged(id: order.id))
        }
        let forward: @Sendable (Charged) -> Void = { bus.queue(Stored(id: $0.id)) }
        var thread: RelayThread?
        switch relay {
        case .synchronous: bus.listen(Charged.self, executeOn: .synchronous) { charged, _ in forward(charged) }
        case .listenerThread: bus.listen(Charged.self, executeOn: .listenerThread) { charged, _ in forward(charged) }
        case .taskThread: bus.listen(Charged.self, executeOn: .taskThread) { charged, _ in forward(charged) }
        case .async: bus.listenAsync(Charged.self) { charged in forward(charged) }
        case .eventThread:
            RelayThread.forward.withLock { $0 = forward }
            thread = RelayThread(bus: bus)
        }
        bus.listenAsync(Stored.self) { _ in stored.increment() }
        for id in 0..<count { bus.queue(Order(id: id)) }
        await gate.waitUntilEntered()

        let stop = Task { await bus.shutdown(gracefullyWithin: .seconds(60)) }
        #expect(await coreEventually { bus.isShutDown })
        bus.queue(Order(id: -1))  // from outside the bus's handlers: refused
        gate.open()
        let cut = await stop.value

        #expect(cut == nil, "quiet long before the deadline")
        #expect(stored.count == count, "every accepted order's follow-ups were handled")
        let statistics = bus.statistics
        #expect(statistics.rejected == 1)
        #expect(statistics.rejectedWhileStopping == 1)
        #expect(statistics.discarded == 0)
        #expect(statistics.delivered == 3 * count)
        withExtendedLifetime(thread) {}
    }

    @Test("a state's change that a handler makes during the stop is a follow-up: handled, not refused")
    func stateChangeFromHandlerFlows() async {
        let bus = EventBus(label: "stop-state")
        let lastOrder = EventState<Int>(label: "last-order")
        let gate = CoreGate()
        let seen = CoreCounter()
        let count = 10
        bus.listen(Order.self, executeOn: .listenerThread) { order, _ in
            if order.id == 0 { gate.block() }  // held until the stop has begun
            bus.set(lastOrder, to: order.id)
        }
        bus.subscribe(lastOrder, on: .listenerThread) { _ in seen.increment() }
        for id in 0..<count { bus.queue(Order(id: id)) }
        await gate.waitUntilEntered()

        let stop = Task { await bus.shutdown(gracefullyWithin: .seconds(60)) }
        #expect(await coreEventually { bus.isShutDown })
        #expect(bus.set(lastOrder, to: -1) == false, "from outside the bus's handlers: refused")
        gate.open()
        let cut = await stop.value

        #expect(cut == nil)
        let statistics = bus.statistics
        #expect(seen.count == count, "every change was handled (\(statistics))")
        #expect(statistics.rejected == 1, "only the outsider's change")
        #expect(statistics.rejectedWhileStopping == 1)
    }

    @Test("at the deadline the rest stops at once: every cut delivery discarded, dead-lettered and counted")
    func deadlineCutsAndCounts() async {
        let bus = EventBus(label: "stop-deadline")
        let letters = bus.deadLetters()
        let reader = Task { await letters.reduce(into: [DeadLetter.Reason]()) { $0.append($1.reason) } }
        let gate = CoreGate()
        let charged = CoreCounter()
        let stored = CoreCounter()
        bus.listen(Order.self, executeOn: .listenerThread) { order, _ in
            if order.id == 0 { gate.block() }  // still running at the deadline
            charged.increment()
            bus.queue(Charged(id: order.id))
        }
        bus.listenAsync(Charged.self) { _ in stored.increment() }
        let accepted = 200
        for id in 0..<accepted { bus.queue(Order(id: id)) }
        await gate.waitUntilEntered()

        let stop = Task { await bus.shutdown(gracefullyWithin: .milliseconds(50)) }
        // The cut removes the bus's subscriptions; the first order's handler is still running.
        #expect(await coreEventually { bus.subscriberCount(for: Order.self) == 0 })
        gate.open()
        let cut = await stop.value
        let reasons = await reader.value

        let statistics = bus.statistics
        #expect(cut != nil, "not quiet by the deadline: a handler was running")
        #expect((cut?.pendingDeliveries ?? 0) >= accepted - 1, "the error says what was pending")
        #expect(charged.count == 1, "only the handler running at the deadline finished")
        #expect(stored.count == 0)
        #expect(statistics.rejected == 0, "its follow-up was cut with the rest, not refused")
        #expect(statistics.discarded == accepted, "199 orders and the running handler's follow-up")
        #expect(reasons.filter { $0 == .discarded }.count == accepted, "each dead-lettered")
        #expect(statistics.delivered == 1)
    }

    @Test(
        "an immediate shutdown during the graceful stop, or cancelling the stopping task, cuts it short",
        arguments: ["immediate shutdown", "cancelled task"])
    func stopCutShort(by cut: String) async {
        let bus = EventBus(label: "stop-cut-\(cut)")
        let gate = CoreGate()
        bus.listen(Order.self, executeOn: .listenerThread) { order, _ in
            if order.id == 0 { gate.block() }
        }
        for id in 0..<10 { bus.queue(Order(id: id)) }
        await gate.waitUntilEntered()
        let stop = Task { await bus.shutdown(gracefullyWithin: .seconds(60)) }
        #expect(await coreEventually { bus.isShutDown })
        let immediate = cut == "immediate shutdown" ? Task { await bus.shutdown(immediately: true) } : nil
        if immediate == nil { stop.cancel() }
        // Cut: the bus's receivers are removed while the first order's handler still runs.
        #expect(await coreEventually { bus.subscriberCount(for: Order.self) == 0 })
        gate.open()
        let error = await stop.value
        await immediate?.value
        #expect(error != nil, "the \(cut) cut the graceful stop short")
        #expect(bus.statistics.delivered == 1, "the running handler finished")
        #expect(bus.statistics.discarded == 9, "the nine orders behind it were discarded and counted")
    }

    @Test("a wait for quiet that times out says how much is pending, counted at the deadline (issue 29)")
    func timeoutReportsPending() async throws {
        let bus = EventBus(label: "quiet-timeout")
        let gate = CoreGate()
        bus.listen(Order.self, executeOn: .listenerThread) { order, _ in
            if order.id == 0 { gate.block() }
        }
        for id in 0..<300 { bus.queue(Order(id: id)) }
        await gate.waitUntilEntered()
        var caught: EventBusNotQuietError?
        do {
            try await bus.waitUntilQuiet(timeout: .milliseconds(50))
        } catch {
            caught = error
        }
        gate.open()
        let error = try #require(caught)
        #expect((299...300).contains(error.pendingDeliveries), "the orders wait behind the blocked handler")
        #expect(error.description.contains("\(error.pendingDeliveries) deliveries pending"))
        await bus.shutdown()
    }
}

/// An EventThread that relays `Charged` as the test says.
private final class RelayThread: EventThread, @unchecked Sendable {  // no stored state of its own
    static let forward = LockedValue<(@Sendable (Charged) -> Void)?>(nil)

    override func registerEventListeners() {
        addEventCallback(Charged.self) { charged, _ in RelayThread.forward.withLock { $0 }?(charged) }
    }
}
