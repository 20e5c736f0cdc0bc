// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

// Drain and shutdown: the bus's side of the lifecycle (``_BusLifecycle``).

extension EventBus {
    /// Returns once every event dispatched before the call has been handled by every receiver
    /// on this bus (or dropped and counted).
    ///
    /// Events that handlers dispatch meanwhile are not waited for; call `drain()` again for those.
    ///
    /// Awaited inside an async or actor listener's handler (or a task that the handler started,
    /// while the handler runs), it does not wait for that listener, whose later deliveries run
    /// once the handler has returned, nor for another such listener whose handler is awaiting
    /// `drain()` or ``waitUntilQuiet(timeout:)`` too (it may be waiting for this one); it waits
    /// for everything else.
    public func drain() async {
        guard let listener = _HandlerScope.serialListener else { return await drained(leavingOutAwaiting: false) }
        await listener.awaitingDrain { await drained(leavingOutAwaiting: true) }
    }

    /// Returns once ``whenDrained(leavingOutAwaiting:_:)`` calls back.
    private func drained(leavingOutAwaiting: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            whenDrained(leavingOutAwaiting: leavingOutAwaiting) { continuation.resume() }
        }
    }

    /// Calls `body` once every event dispatched before the call has been handled.
    public func whenDrained(_ body: @escaping @Sendable () -> Void) {
        whenDrained(leavingOutAwaiting: false, body)
    }

    /// ``whenDrained(_:)``, leaving out, when `leavingOutAwaiting`, the async and actor listeners
    /// whose handlers are awaiting a drain (for a drain awaited in such a handler: ``drain()``).
    func whenDrained(leavingOutAwaiting: Bool, _ body: @escaping @Sendable () -> Void) {
        let mailboxes = receivingMailboxes
        let sinks = drainableSinks.filter { sink in
            !leavingOutAwaiting || (sink as? _SerialHandlerSink)?.handlerMark.isAwaitingDrain != true
        }
        let countdown = _Countdown(mailboxes.count + sinks.count + 1, then: body)
        for mailbox in mailboxes {
            // Counted too: a closed mailbox runs the barrier at once, maybe before its drainer
            // has counted what the close cut short of its batch.
            mailbox.addBarrier { [weak mailbox] in
                if let mailbox { mailbox.whenBatchCounted { countdown.tick() } } else { countdown.tick() }
            }
        }
        for sink in sinks {
            sink.addBarrier { countdown.tick() }
        }
        tasks.whenIdle { countdown.tick() }
    }

    /// Every mailbox that a subscription of this bus delivers into.
    var receivingMailboxes: [_Mailbox] {
        let subscriptions = registry.withLock { $0.allSubscriptions }
        var seen = Set<ObjectIdentifier>()
        var mailboxes: [_Mailbox] = []
        for subscription in subscriptions {
            if let mailbox = subscription.mailbox, seen.insert(ObjectIdentifier(mailbox)).inserted {
                mailboxes.append(mailbox)
            }
        }
        let shared = sharedMailboxes.withLock { $0.all + $0.detaching.values.map(\.mailbox) }
        for mailbox in shared where seen.insert(ObjectIdentifier(mailbox)).inserted {
            mailboxes.append(mailbox)
        }
        return mailboxes
    }

    /// Every sink of this bus that holds deliveries for later (async listeners).
    private var drainableSinks: [any _DrainableSink] {
        var seen = Set<ObjectIdentifier>()
        var sinks: [any _DrainableSink] = []
        for subscription in registry.withLock({ $0.allSubscriptions }) {
            if let sink = subscription.target as? any _DrainableSink,
                seen.insert(ObjectIdentifier(sink)).inserted
            {
                sinks.append(sink)
            }
        }
        for sink in sharedMailboxes.withLock({ Array($0.finishingSinks.values) })
        where seen.insert(ObjectIdentifier(sink)).inserted {
            sinks.append(sink)
        }
        return sinks
    }

    /// Keeps `sink` visible to `drain()` while its subscription is removed and it finishes what
    /// it holds, until ``forgetDrainable(_:)`` with the returned identity.
    func keepDrainable(_ sink: any _DrainableSink) -> ObjectIdentifier {
        let id = ObjectIdentifier(sink)
        sharedMailboxes.withLock { $0.finishingSinks[id] = sink }
        return id
    }

    /// Ends what ``keepDrainable(_:)`` started.
    func forgetDrainable(_ id: ObjectIdentifier) {
        sharedMailboxes.withLock { _ = $0.finishingSinks.removeValue(forKey: id) }
    }

    /// `true` once ``shutdown()`` has been called.
    public var isShutDown: Bool { !lifecycle.isAccepting }

    /// Shuts the bus down gracefully: ``shutdown(immediately:)`` with `false`.
    public func shutdown() async {
        await shutdown(immediately: false)
    }

    /// Stops accepting events and stops every receiver, stream and scheduled dispatch of the bus.
    ///
    /// - Parameter immediately: `false` waits until everything dispatched before has been
    ///   handled, then stops. `true` removes every subscription at once: handlers already running
    ///   finish, everything still pending is discarded and counted in
    ///   ``EventBusStatistics/discarded``.
    ///
    /// Either way, scheduled dispatches are cancelled, every receiving thread of the bus stops
    /// (the listener thread, EventThreads, serial contexts), async listeners end, and event
    /// streams end after yielding what they had buffered. Later dispatches are counted as
    /// ``EventBusStatistics/rejected`` and reported as ``EventDrivenError/Code/busShutDown``.
    ///
    /// A graceful shutdown refuses the events that its handlers dispatch while it waits; to let
    /// them through until the bus is quiet, within a deadline, see ``shutdown(gracefullyWithin:)``.
    /// An immediate shutdown asked for while that one runs cuts it short.
    ///
    /// Awaited inside an async or actor listener's handler (or a task that one starts), whose
    /// return the shutdown waits for, it starts the shutdown in a task of its own and returns at
    /// once: the shutdown then finishes once that handler has returned (as
    /// ``EventPool/stop(draining:)`` does from a pool's callback).
    public func shutdown(immediately: Bool) async {
        if _HandlerScope.isHandler { return shutdownLater { await $0.shutdown(immediately: immediately) } }
        counters.observation.isClosed.store(true, ordering: .relaxed)
        // A second call, concurrent or later, returns once the first has finished.
        guard await lifecycle.begin(immediately: immediately) else { return }
        defer { lifecycle.end() }
        scheduledEvents.cancelAll()
        await stopReceivers(immediately: immediately)
    }

    /// Returns once no dispatch is in progress (the bus no longer accepts new ones from outside).
    private func dispatchesEnded() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            dispatches.whenIdle { continuation.resume() }
        }
    }

    /// Runs `shutdown` in a detached task, outside the handler that asked for it (see
    /// ``shutdown(immediately:)``).
    func shutdownLater(_ shutdown: @escaping @Sendable (EventBus) async -> Void) {
        Task.detached { [self] in await shutdown(self) }
    }

    /// The shutdown proper, once it has begun: waits for what is pending unless `immediately`,
    /// stops every receiver, and waits until the counts are final.
    func stopReceivers(immediately: Bool) async {
        if !immediately {
            // A dispatch that passed the accepting check just before the stop began may still be
            // pushing: once none is in progress, every accepted delivery is in its receiver, ahead
            // of the drain's barriers (`ShutdownRaceTests`).
            await dispatchesEnded()
            await drain()
        }
        let mailboxes = receivingMailboxes
        let pools = subscribedPools
        removeAllSubscriptions()
        // Closing releases blocked producers, so the dispatches still in progress can end.
        for mailbox in mailboxes { mailbox.close() }
        await stop(pools, draining: !immediately)
        // The counts are final, and every dead letter posted, once the dispatches that began
        // before the shutdown have ended, each closed mailbox has counted its batch in
        // progress, and the tasks and async listeners have worked through what they held.
        await dispatchesEnded()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let countdown = _Countdown(mailboxes.count + 1) { continuation.resume() }
            for mailbox in mailboxes { mailbox.whenBatchCounted { countdown.tick() } }
            tasks.whenIdle { countdown.tick() }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let sinks = drainableSinks
            let countdown = _Countdown(sinks.count + 1) { continuation.resume() }
            for sink in sinks { sink.addBarrier { countdown.tick() } }
            countdown.tick()
        }
        counters.deadLetters.close()
    }

    private func removeAllSubscriptions() {
        let subscriptions = registry.withLock { $0.allSubscriptions }
        for subscription in subscriptions { subscription.cancel() }
    }
}
