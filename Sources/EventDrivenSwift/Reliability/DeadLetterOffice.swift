// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// Where a bus posts the events it could not deliver, for whoever observes its dead letters.
///
/// Posting is free while nobody observes: two relaxed atomic loads. The bus's interceptors
/// observe them too: every undelivered outcome but a filter's refusal and a handler's failure
/// (which the handler's run reports) reaches them through here, once.
final class _DeadLetterOffice: Sendable {
    private struct Observers {
        var nextID = 0
        var continuations: [Int: AsyncStream<DeadLetter>.Continuation] = [:]
        var isClosed = false
    }

    private let observers = LockedValue(Observers())
    private let observerCount = Atomic<Int>(0)
    private let observation: _Observation

    init(observation: _Observation) {
        self.observation = observation
    }

    deinit {
        close()
    }

    @inline(__always)
    var isObserved: Bool { observerCount.load(ordering: .relaxed) > 0 || observation.isActive }

    /// Hands a dead letter for `envelope` to every observer, and its outcome to the interceptors.
    ///
    /// Never inlined: its stream's generic types, inlined into a drain loop, made the loop
    /// instantiate their metadata and size its stack frame for them on every call, posted or not.
    @inline(never)
    func post(_ envelope: _EventEnvelope, reason: DeadLetter.Reason) {
        if observation.isActive { report(reason, envelope) }
        guard observerCount.load(ordering: .relaxed) > 0 else { return }
        post(DeadLetter(event: envelope.event, metadata: envelope.metadata, reason: reason))
    }

    @inline(never)
    private func report(_ reason: DeadLetter.Reason, _ envelope: _EventEnvelope) {
        switch reason {
        case .undelivered: observation.foundNoReceiver(envelope)
        case .expired: observation.settled(.expired, envelope, receiver: nil)
        case .superseded: observation.settled(.superseded, envelope, receiver: nil)
        case .ownerReleased: observation.settled(.ownerReleased, envelope, receiver: nil)
        case .dropped: observation.settled(.dropped, envelope, receiver: nil)
        case .discarded: observation.settled(.discarded, envelope, receiver: nil)
        // The handler's run reported it, with its error and duration.
        case .failed: break
        }
    }

    func post(_ letter: DeadLetter) {
        guard observerCount.load(ordering: .relaxed) > 0 else { return }
        let continuations = observers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(letter) }
    }

    /// A new stream of the dead letters posted from now on.
    func observe(bufferingPolicy: EventBufferingPolicy) -> AsyncStream<DeadLetter> {
        let policy: AsyncStream<DeadLetter>.Continuation.BufferingPolicy =
            switch bufferingPolicy {
            case .unbounded: .unbounded
            case .bufferingOldest(let limit): .bufferingOldest(limit)
            case .bufferingNewest(let limit): .bufferingNewest(limit)
            }
        let (stream, continuation) = AsyncStream.makeStream(of: DeadLetter.self, bufferingPolicy: policy)
        let id: Int? = observers.withLock { observers in
            guard !observers.isClosed else { return nil }
            let id = observers.nextID
            observers.nextID += 1
            observers.continuations[id] = continuation
            observerCount.add(1, ordering: .relaxed)
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.observers.withLock { observers in
                if observers.continuations.removeValue(forKey: id) != nil {
                    self?.observerCount.subtract(1, ordering: .relaxed)
                }
            }
        }
        return stream
    }

    /// Ends every dead-letter stream; later observers get a stream that has already ended.
    func close() {
        let continuations = observers.withLock { observers in
            observers.isClosed = true
            defer { observers.continuations = [:] }
            observerCount.store(0, ordering: .relaxed)
            return Array(observers.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}

extension _BusCounters {
    /// Posts a dead letter for a delivery that ended without its handler running, except where
    /// the listener chose to skip it (a custom filter).
    @inline(__always)
    func noteUndelivered(_ outcome: _DeliveryOutcome, _ envelope: _EventEnvelope) {
        guard deadLetters.isObserved else { return }
        switch outcome {
        case .delivered, .filtered: return
        case .removed: deadLetters.post(envelope, reason: .discarded)
        case .ownerGone: deadLetters.post(envelope, reason: .ownerReleased)
        case .expired: deadLetters.post(envelope, reason: .expired)
        case .superseded: deadLetters.post(envelope, reason: .superseded)
        case .failed: deadLetters.post(envelope, reason: .failed)
        case .dropped: deadLetters.post(envelope, reason: .dropped)
        }
    }
}

extension EventBus {
    /// The events this bus could not deliver from now on, with the reason: nobody listened,
    /// expired, superseded, owner released, dropped by a full mailbox or stream buffer,
    /// discarded by a stopped receiver, or failed (the handler threw). Filtered events are the listener's choice and do not
    /// appear.
    ///
    /// The stream ends when the bus shuts down or is freed. Events dispatched after shutdown are
    /// not dead letters: the dispatch reports ``EventDrivenError/Code/busShutDown``.
    public func deadLetters(
        bufferingPolicy: EventBufferingPolicy = .unbounded
    ) -> AsyncStream<DeadLetter> {
        counters.deadLetters.observe(bufferingPolicy: bufferingPolicy)
    }
}
