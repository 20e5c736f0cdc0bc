/// The subscribers of one event type (or channel) on one bus: an immutable snapshot, replaced
/// whenever a subscription is added or removed. A dispatch takes it from the registry under
/// the registry's lock, retained, and delivers through it after the lock is released.
final class _Route: Sendable {
    let subscriptions: [_Subscription]
    /// Present while any subscriber is `.latestOnly`; dispatch then numbers the events.
    let latest: _LatestTracker?
    /// `true` when a stacked event must reach the subscriptions whose targets keep D3 lanes in
    /// reverse (see ``deliver(_:)``): some of them share a receiver.
    private let reversesStacked: Bool
    /// The bus's count of dispatches in flight, which every route is in while it lives: a
    /// dispatch holds its route while it delivers, so a shutdown that has removed every route
    /// waits for those dispatches by waiting for their routes to go.
    private let inFlight: _DispatchesInFlight?

    init(subscriptions: [_Subscription], latest: _LatestTracker?, inFlight: _DispatchesInFlight? = nil) {
        inFlight?.enter()
        self.inFlight = inFlight
        self.subscriptions = subscriptions
        self.latest = latest
        self.reversesStacked = subscriptions.count > 1 && subscriptions.contains { $0.usesLanes }
    }

    deinit {
        inFlight?.leave()
    }

    /// Hands `envelope` to the target of every subscription, through the one boundary
    /// (``_DeliveryTarget/deliver(_:for:)``), holding no lock of the bus.
    ///
    /// A receiver runs its stacked deliveries newest first, so the deliveries of one stacked
    /// event to receivers with lanes go in reverse: a receiver with several subscriptions for
    /// the type then still runs them in registration order. The others keep registration order.
    func deliver(_ envelope: _EventEnvelope) {
        if reversesStacked && envelope.metadata.method == .stack {
            for subscription in subscriptions where !subscription.usesLanes { subscription.send(envelope) }
            for subscription in subscriptions.reversed() where subscription.usesLanes { subscription.send(envelope) }
            return
        }
        for subscription in subscriptions {
            subscription.target.deliver(envelope, for: subscription)
        }
    }
}
