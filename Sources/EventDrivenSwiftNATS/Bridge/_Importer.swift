// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// A decoded delivery on its way to local handlers.
struct _Accepted: Sendable {
    var delivery: any TransportDelivery
    var event: any Eventable
    var info: NATSDeliveryInfo
    /// Its key among the importer's running deliveries.
    var key: UInt64 = 0
}

/// Imports one event type: fetches from its consumer, decodes, hands the events to local
/// handlers through `settle`, then acks, naks with backoff, or dead-letters each message as soon
/// as its own handler finished.
///
/// What the process holds stays within ``NATSBridgeConfiguration/Consumers/maxHeld``: a fetch
/// asks only for the room left, what the consumer accepted less what was concluded
/// (``room(maxHeld:accepted:concluded:)``), so that a delivery still queued, or taken from the
/// queue and not yet counted as held, counts as well. A fetch that ended here while the server
/// still served it may bring deliveries after the next fetch was asked for: the process may then
/// hold, for a moment, up to those fetches' batches more (see *Beyond One Process*). A message
/// held for a third of the ack wait (waiting for its handler, or in it) has its ack wait
/// restarted (`+WPI`), and again every third.
final class _Importer: Sendable {
    private struct Held: Sendable {
        /// Deliveries taken from the consumer and not yet concluded.
        var count = 0
        /// Deliveries of the round's consumer concluded (acknowledged, sent back, retried or
        /// dead-lettered), in all: with what the consumer accepted, what is out from the broker.
        var concluded = 0
        var waiter: CheckedContinuation<Void, Never>?
        var isStopping = false
        var isStopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
        /// Who waits for ``count`` to reach 0.
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        /// The deliveries with local handlers, by key, and since when their ack wait runs.
        var running: [UInt64: (delivery: any TransportDelivery, since: ContinuousClock.Instant)] = [:]
        var nextKey: UInt64 = 0
        /// The consumer open now (of round ``round``), and whether it was finished: once, by the
        /// round's end or by a stop that its outstanding fetch outlived.
        var consumer: (any TransportConsumer)?
        var round = 0
        var consumerFinished = false
        /// Whether the bus has refused a delivery: nothing more is imported.
        var isRefused = false
        /// Whether the round's fetch loop runs: a fetch of ours may be outstanding on the server.
        var isFetching = false
        /// Deliveries the bus refused while a fetch may be outstanding, sent back once it has ended.
        var refusedWaiting: [(delivery: any TransportDelivery, done: @Sendable () -> Void)] = []
    }

    let entry: NATSEventRegistry.Entry
    let mode: NATSImportMode
    let transport: any EventTransport
    let configuration: NATSBridgeConfiguration
    let counters: _BridgeCounters
    let logger: Logger
    let deadLetter: @Sendable (NATSDeadLetter) -> Void
    /// Hands a batch to the local handlers, which finish each of its slots.
    private let settle: @Sendable (_BatchSettlement) async -> Void
    private let held = NIOLockedValueBox(Held())
    /// The waits before a consumer is opened again, which a stop cuts short.
    private let pauses = _StoppableWait()

    init(
        entry: NATSEventRegistry.Entry, mode: NATSImportMode, transport: any EventTransport,
        configuration: NATSBridgeConfiguration, counters: _BridgeCounters, logger: Logger,
        deadLetter: @escaping @Sendable (NATSDeadLetter) -> Void,
        settle: @escaping @Sendable (_BatchSettlement) async -> Void
    ) {
        self.entry = entry
        self.mode = mode
        self.transport = transport
        self.configuration = configuration
        self.counters = counters
        self.logger = logger
        self.deadLetter = deadLetter
        self.settle = settle
    }

    private var isStopping: Bool { held.withLockedValue { $0.isStopping } }

    /// Opens the consumer (again, when the broker lost it) and runs until ``stop()``; then
    /// handles and settles what it holds before returning.
    func run(ready: @escaping @Sendable (Result<Void, any Error>) -> Void) async {
        defer {
            let waiters = held.withLockedValue { held in
                held.isStopped = true
                defer { held.stopWaiters = [] }
                return held.stopWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
        var isFirst = true
        // Consumers lost in a row, each soon after it was opened: the next open waits first.
        var lostInARow = 0
        while !isStopping {
            if lostInARow > 0 { await pauses.wait(configuration.consumers.reopenDelay(afterLosses: lostInARow)) }
            guard !isStopping else { break }
            let opened = ContinuousClock.now
            let consumer: any TransportConsumer
            do {
                consumer = try await transport.openConsumer(
                    subject: configuration.subject(for: entry.name), mode: mode)
            } catch {
                if isFirst {
                    ready(.failure(error))
                    return
                }
                logger.warning("cannot open the consumer for \(entry.name): \(error); retrying")
                await pauses.wait(.milliseconds(500))
                continue
            }
            if isFirst { ready(.success(())) }
            isFirst = false
            let round = held.withLockedValue { held in
                held.round += 1
                // Nothing is held between rounds: what is concluded from now on is this consumer's.
                held.concluded = 0
                held.consumer = consumer
                held.consumerFinished = false
                held.isFetching = true
                return held.round
            }
            await withTaskGroup(of: Void.self) { tasks in
                tasks.addTask { await self.process(consumer) }
                tasks.addTask { await self.keepInProgress() }
                tasks.addTask { await self.deadLetterExhausted(consumer) }
                await fetch(consumer)
                // Finished (its inbox unsubscribed) before anything is sent back: a request of
                // ours that the server may still hold (a fetch that ended here first) would take
                // what is sent back, and the finishing consumer would not.
                finishConsumer(round: round)
                let refused = held.withLockedValue { held in
                    held.isFetching = false
                    defer { held.refusedWaiting = [] }
                    return held.refusedWaiting
                }
                for (delivery, done) in refused { sendBack(delivery, done: done) }
                await tasks.next()
                await tasks.next()
                // The handlers still running settle what they hold before the importer ends.
                await self.waitUntilNothingHeld()
                tasks.cancelAll()
            }
            held.withLockedValue { $0.consumer = nil }
            // A server that deletes the consumer at every fetch (409 Consumer Deleted) is not
            // asked again at full speed; one that kept it a while is.
            if consumer.isLost, ContinuousClock.now - opened < configuration.consumers.maxReopenDelay * 2 {
                lostInARow += 1
            } else {
                lostInARow = 0
            }
        }
    }

    /// Stops fetching; what was fetched is still handled and settled. A fetch outstanding
    /// still after ``stopGrace`` (one with a long ``NATSBridgeConfiguration/Consumers/fetchExpiry``)
    /// is not waited for: the consumer is finished, and what the server sends it later is
    /// redelivered after its ack wait.
    func stop() {
        let (waiter, round) = held.withLockedValue { held in
            held.isStopping = true
            defer { held.waiter = nil }
            return (held.waiter, held.round)
        }
        waiter?.resume()
        pauses.stop()
        Task { [weak self] in
            try? await Task.sleep(for: Self.stopGrace)
            self?.finishConsumer(round: round)
        }
    }

    /// How long a stop waits for the outstanding fetch to end by itself: longer than the default
    /// fetch expiry (1 s) and the half second the subscription gives the server after it.
    static let stopGrace = Duration.seconds(2)

    /// Finishes the consumer of `round`, unless that round is over or its consumer was finished.
    private func finishConsumer(round: Int) {
        let consumer = held.withLockedValue { held -> (any TransportConsumer)? in
            guard held.round == round, !held.consumerFinished else { return nil }
            held.consumerFinished = true
            return held.consumer
        }
        consumer?.finish()
    }

    /// Returns once ``run(ready:)`` has returned.
    func waitUntilStopped() async {
        await withCheckedContinuation { continuation in
            let isStopped = held.withLockedValue { held -> Bool in
                if held.isStopped { return true }
                held.stopWaiters.append(continuation)
                return false
            }
            if isStopped { continuation.resume() }
        }
    }

    private func fetch(_ consumer: any TransportConsumer) async {
        let consumers = configuration.consumers
        let maxHeld = max(1, consumers.maxHeld)
        // At least one: a batch of none never fetched anything and never waited (a busy loop).
        let fetchBatch = max(1, consumers.fetchBatch)
        while !isStopping, !consumer.isLost {
            // The room left: what the process holds, queued deliveries and deliveries taken and
            // not yet counted included, stays within maxHeld. Nothing is asked for until a whole
            // batch (or maxHeld) fits.
            let wanted = min(fetchBatch, maxHeld)
            var room = 0
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let mayFetch = held.withLockedValue { held -> Bool in
                    room = Self.room(maxHeld: maxHeld, accepted: consumer.accepted, concluded: held.concluded)
                    if held.isStopping || room >= wanted { return true }
                    held.waiter = continuation
                    return false
                }
                if mayFetch { continuation.resume() }
            }
            guard !isStopping else { return }
            let size = min(fetchBatch, room)
            guard size > 0 else { continue }
            do {
                try await consumer.fetch(batch: size, expires: consumers.fetchExpiry)
            } catch let error as NATSError {
                if case .permissionViolation = error {
                    logger.error("fetching \(entry.name): \(error)")
                    try? await Task.sleep(for: .seconds(1))
                } else {
                    try? await Task.sleep(for: .milliseconds(100))
                }
            } catch {
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// How many deliveries a fetch may ask for: `maxHeld` less what is out from the broker, the
    /// deliveries the consumer `accepted` less those `concluded`. Those taken from the consumer's
    /// queue and not yet counted by ``process(_:)`` (a fetch that ends as its batch arrives wakes
    /// the fetch loop and the reader together) are out as well: counted only once taken, they let
    /// a fetch ask for a batch beyond `maxHeld`.
    static func room(maxHeld: Int, accepted: Int, concluded: Int) -> Int {
        maxHeld - (accepted - concluded)
    }

    /// Takes deliveries from `consumer` as they arrive and hands them, batch by batch and in
    /// order, to ``settle``. A delivery runs (its ack wait is kept, see ``keepInProgress()``)
    /// from the moment it is taken: the next batch is taken while the one before it is still
    /// settled (`importEvents` waits for `bus.drain()`), not left in the consumer's queue, where
    /// its ack wait ran with nothing to restart it.
    private func process(_ consumer: any TransportConsumer) async {
        let (batches, queue) = AsyncStream.makeStream(of: _BatchSettlement.self)
        // What waits here stays within maxHeld: it is accepted and not concluded, which bounds the
        // fetches.
        let settling = Task { for await batch in batches { await settle(batch) } }
        while true {
            let deliveries = await consumer.nextDeliveries()
            if deliveries.isEmpty { break }
            held.withLockedValue { $0.count += deliveries.count }
            counters.received.add(deliveries.count, ordering: .relaxed)
            var accepted: [_Accepted] = []
            accepted.reserveCapacity(deliveries.count)
            for delivery in deliveries {
                if let reason = decode(delivery, into: &accepted) {
                    sendToDeadLetters(delivery, reason: reason) { self.release(nil) }
                }
            }
            guard !accepted.isEmpty else { continue }
            let now = ContinuousClock.now
            held.withLockedValue { held in
                for index in accepted.indices {
                    accepted[index].key = held.nextKey
                    held.running[held.nextKey] = (accepted[index].delivery, now)
                    held.nextKey &+= 1
                }
            }
            queue.yield(
                _BatchSettlement(items: accepted) { [self] item, outcome in
                    conclude(item, outcome) { self.release(item.key) }
                })
        }
        queue.finish()
        await settling.value
    }

    /// One delivery fewer held, concluded (and no longer running when it had a key); wakes the
    /// fetch loop.
    private func release(_ key: UInt64?) {
        let (waiter, drained) = held.withLockedValue { held in
            held.count -= 1
            held.concluded += 1
            if let key { held.running[key] = nil }
            defer {
                held.waiter = nil
                if held.count == 0 { held.drainWaiters = [] }
            }
            return (held.waiter, held.count == 0 ? held.drainWaiters : [])
        }
        waiter?.resume()
        for waiter in drained { waiter.resume() }
    }

    private func waitUntilNothingHeld() async {
        await withCheckedContinuation { continuation in
            let isEmpty = held.withLockedValue { held -> Bool in
                if held.count == 0 { return true }
                held.drainWaiters.append(continuation)
                return false
            }
            if isEmpty { continuation.resume() }
        }
    }

    /// Restarts the ack wait (`+WPI`) of every message held for a third of the ack wait since it
    /// arrived or since its last `+WPI`, until cancelled. Checked every sixth of the ack wait,
    /// so that a `+WPI` leaves at most half the ack wait after the one before: the other half is
    /// the margin for a busy process and the way to the server.
    private func keepInProgress() async {
        let third = configuration.consumers.ackWait / 3
        let tick = max(third / 2, .milliseconds(10))
        while !Task.isCancelled {
            try? await Task.sleep(for: tick.sleepable)
            let now = ContinuousClock.now
            let due = held.withLockedValue { held -> [any TransportDelivery] in
                var due: [any TransportDelivery] = []
                for (key, entry) in held.running where now - entry.since >= third {
                    due.append(entry.delivery)
                    held.running[key]?.since = now
                }
                return due
            }
            for delivery in due {
                do {
                    try delivery.inProgress()
                    counters.inProgress.add(1, ordering: .relaxed)
                } catch {
                    counters.settleFailures.add(1, ordering: .relaxed)
                }
            }
        }
    }

    /// The bus refused a delivery (it was shut down): the first time, stops importing (logged).
    private func busRefused() {
        let isFirst = held.withLockedValue { held -> Bool in
            defer { held.isRefused = true }
            return !held.isRefused
        }
        guard isFirst else { return }
        logger.warning("the bus refused an imported \(entry.name) (shut down): sent back; importing it stops")
        stop()
    }

    /// Sends back at once (`-NAK` without delay) a delivery the bus refused, then calls `done`.
    private func sendBack(_ delivery: any TransportDelivery, done: @Sendable () -> Void) {
        defer { done() }
        do {
            try delivery.nak(delay: nil)
        } catch {
            counters.settleFailures.add(1, ordering: .relaxed)
            logger.warning("cannot send back a refused \(entry.name): \(error); the broker will redeliver it")
        }
    }

    /// Settles `item` by its handler's outcome, then calls `done` (after the dead letter is
    /// stored, for one that goes there). A delivery the bus refused is sent back without delay,
    /// neither retried later nor dead-lettered (it is not its fault), once the fetch outstanding
    /// has ended: sent back while a fetch of ours waits on the server, it would be redelivered
    /// to that fetch, which no longer takes anything (and nats-server 2.9, the fetch's inbox
    /// unsubscribed first, lost the redelivery until the ack wait and delivered another message
    /// twice).
    private func conclude(_ item: _Accepted, _ outcome: (any Error)?, done: @escaping @Sendable () -> Void) {
        do {
            if outcome is _RefusedByBus {
                counters.refusedByBus.add(1, ordering: .relaxed)
                busRefused()
                let isFetching = held.withLockedValue { held -> Bool in
                    if held.isFetching { held.refusedWaiting.append((item.delivery, done)) }
                    return held.isFetching
                }
                if !isFetching { sendBack(item.delivery, done: done) }
                return
            }
            guard let error = outcome else {
                defer { done() }
                try item.delivery.ack()
                counters.handled.add(1, ordering: .relaxed)
                return
            }
            let count = item.delivery.deliveryCount
            if count >= configuration.consumers.maxDeliver {
                sendToDeadLetters(
                    item.delivery,
                    reason: _DeadLetterReason(name: entry.name, text: "handler failed \(count) times: \(error)"),
                    done: done)
                return
            }
            defer { done() }
            let delays = configuration.consumers.retryDelays
            let delay = delays.isEmpty ? nil : delays[min(max(count - 1, 0), delays.count - 1)]
            try item.delivery.nak(delay: delay)
            counters.retried.add(1, ordering: .relaxed)
        } catch {
            counters.settleFailures.add(1, ordering: .relaxed)
            logger.warning("cannot settle \(item.info.messageID): \(error); the broker will redeliver it")
        }
    }

}
