// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

extension EventBus {
    /// Registers `consumer` after the consumers registered before it. The bus holds it weakly:
    /// once it is freed it is no longer called. Registering a consumer that is already
    /// registered changes nothing, so it still consumes each event once.
    /// - Returns: `false` if `consumer` was already registered.
    @discardableResult
    public func register(_ consumer: any EventConsumer) -> Bool {
        defer { updateConsumptionNotices() }
        return stores.consumers.add(consumer)
    }

    /// Stops calling `consumer`. A dispatch already under way on another thread may still
    /// call it once.
    /// - Returns: `false` if `consumer` was not registered.
    @discardableResult
    public func unregister(_ consumer: any EventConsumer) -> Bool {
        defer { updateConsumptionNotices() }
        return stores.consumers.remove(consumer)
    }

    /// How many live consumers are registered.
    public var consumerCount: Int {
        stores.consumers.snapshot.count { $0.consumer != nil }
    }

    /// The dispatch path's hook for consumers: runs the consumers that accept `event`, each
    /// followed by its did-consume notice.
    /// - Returns: `true` if at least one consumer consumed `event`.
    @inline(__always)
    func offerToConsumers(_ envelope: () -> _EventEnvelope, type: ObjectIdentifier) -> Bool {
        guard !stores.consumers.isEmpty else { return false }
        let envelope = envelope()
        guard _SynchronousDepth.enter() else { return refuseConsumersTooDeep(envelope, type: type) }
        defer { _SynchronousDepth.leave() }
        return runConsumers(envelope, type: type)
    }

    /// Counts and reports, for each consumer that accepts the event, a consumption refused for
    /// nesting too deeply (``EventBus/maximumSynchronousDepth``).
    @inline(never)
    private func refuseConsumersTooDeep(_ envelope: _EventEnvelope, type: ObjectIdentifier) -> Bool {
        var refused = false
        for entry in stores.consumers.snapshot where entry.consumer != nil && entry.accepts(type) {
            refuseTooDeep(envelope, receiver: "a consumer (dispatching thread)")
            refused = true
        }
        return refused
    }

    private func runConsumers(_ envelope: _EventEnvelope, type: ObjectIdentifier) -> Bool {
        let event = envelope.event
        var consumed = 0
        var sawReleased = false
        for entry in stores.consumers.snapshot {
            guard let consumer = entry.consumer else {
                sawReleased = true
                continue
            }
            guard entry.accepts(type) else { continue }
            if _slowPath(envelope.annotation != nil) {
                consumeObserved(envelope, by: consumer)
            } else {
                consumer.consume(event)
            }
            consumed += 1
        }
        if consumed > 0 { counters.delivered.add(consumed, ordering: .relaxed) }
        if sawReleased { stores.consumers.pruneReleased() }
        return consumed > 0
    }

    /// Runs `consumer` for an event dispatched while the bus was observed: inside the
    /// interceptors' wrappers, with the event's service context current, and reported to them
    /// as a delivery to a synchronous receiver named after the consumer's type. The
    /// did-consume notice is one of those interceptors (``_ConsumptionNotices``).
    @inline(never)
    private func consumeObserved(_ envelope: _EventEnvelope, by consumer: any EventConsumer) {
        let receiver = EventReceiver(
            kind: .synchronous, name: "consumer (dispatching thread)", owner: String(describing: type(of: consumer)))
        // `consume` does not throw, so neither does the run.
        try? counters.observation.run(
            { consumer.consume(envelope.event) }, for: envelope, receiver: receiver, consumer: consumer)
    }
}
