// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// The did-consume notice, built on the bus's interceptors like metrics, tracing and the flow
/// recorder: installed while anyone wants notices (a listener, stream or consumer of
/// ``DidConsumeEvent``), it sees each consumer's consumption as a delivery and dispatches a
/// ``DidConsumeEvent`` after it, before the next consumer runs.
final class _ConsumptionNotices: EventInterceptor {
    private weak let bus: EventBus?

    init(bus: EventBus) {
        self.bus = bus
    }

    func didDeliver(_ delivery: EventDeliveryInfo, result: EventDeliveryResult) {
        guard let consumer = delivery.consumer, result.outcome == .delivered, !(delivery.event is DidConsumeEvent),
            let bus, bus.wantsConsumptionNotices
        else { return }
        bus.dispatch(
            DidConsumeEvent(consumer: consumer, event: delivery.event),
            metadata: EventMetadata(
                priority: delivery.metadata.priority, method: delivery.metadata.method, dispatchTime: ._eventNow,
                scheduledTime: nil))
    }
}

/// Whether a bus's ``_ConsumptionNotices`` is installed, and under which token.
final class _ConsumptionNoticesSwitch: Sendable {
    private let token = LockedValue<Int?>(nil)

    /// Installs or removes the notices on `bus` so that they are installed exactly while `wanted()`.
    func update(_ bus: EventBus, wanted: () -> Bool) {
        token.withLock { token in
            let isWanted = wanted()
            if isWanted, token == nil {
                token = bus.counters.observation.add(_ConsumptionNotices(bus: bus))
            } else if !isWanted, let installed = token {
                _ = bus.counters.observation.remove(installed)
                token = nil
            }
        }
    }
}

extension EventBus {
    /// `true` while a listener, subscriber or consumer of ``DidConsumeEvent`` is registered.
    var wantsConsumptionNotices: Bool {
        stores.consumers.wantsNotices || registry.withLock { $0.routes[ObjectIdentifier(DidConsumeEvent.self)] != nil }
    }

    /// Installs the did-consume notices while they are wanted; called whenever a consumer, or a
    /// subscription to ``DidConsumeEvent``, comes or goes.
    func updateConsumptionNotices() {
        stores.consumptionNotices.update(self) { wantsConsumptionNotices }
    }
}
