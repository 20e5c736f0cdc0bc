// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A kind of receiver that subscriptions deliver to: the one boundary between routing and
/// delivery.
///
/// The bus only routes: an event's exact type finds a route, and the route hands the event to
/// the target of each of its subscriptions through ``deliver(_:for:)``, without knowing which
/// kind the target is. The kinds:
///
/// | target | file | where the handler runs |
/// |---|---|---|
/// | ``_Mailbox`` | Receivers/Mailbox/Mailbox.swift | one drain at a time: an `EventThread`, the listener thread, a requester's context, the main actor |
/// | ``_SynchronousTarget`` | Receivers/Synchronous/SynchronousTarget.swift | on the dispatching thread, before the dispatch returns |
/// | ``_TaskTarget`` | Receivers/Task/TaskTarget.swift | in a task of its own for every delivery (`.taskThread`) |
/// | ``_EventPoolCore`` | Pools/EventPoolCore+DeliveryTarget.swift | on the pool thread its balancer chooses |
/// | ``_StreamSink``, ``_SerialHandlerSink`` | Concurrency/ | where the stream's consumer or the async handler runs |
///
/// Every delivery of every kind goes through ``deliver(_:for:)``; a kind's fast path and its
/// unsafe code stay in its own files.
protocol _DeliveryTarget: AnyObject, Sendable {
    /// Hands `envelope` to this target for `subscription`: on the dispatching thread, holding no
    /// lock of the bus. The target settles the delivery's outcome, now or when it runs.
    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription)
    /// Hands `envelope` to this target for each subscription of `run`, the subscriptions of
    /// `route` that share this target, to run in their (registration) order; by default one
    /// ``deliver(_:for:)`` each, in reverse for a stacked event when the target has lanes (it runs
    /// stacked deliveries newest first). The route is lent: a target that keeps it past the call
    /// retains it.
    func deliver(_ envelope: _EventEnvelope, to run: Range<Int>, of route: _Route)
    /// Where the target runs handlers, in words, for errors and logs.
    var receiverDescription: String { get }
    /// Who the target is, in a word or two, for interceptors and the topology.
    var receiverName: String { get }
    /// The kind of receiver the target is, for interceptors.
    var receiverKind: EventReceiverKind { get }
    /// `true` when deliveries wait in the receiver's D3 lanes (a mailbox, or something that
    /// forwards to one), rather than running at once or in a task of their own.
    var usesLanes: Bool { get }
    /// `true` when ``deliver(_:for:)`` runs the handler itself, on the sender's thread, so the
    /// sender must not hold a lock the handler might need.
    var runsOnSender: Bool { get }
}

extension _DeliveryTarget {
    func deliver(_ envelope: _EventEnvelope, to run: Range<Int>, of route: _Route) {
        deliverOneByOne(envelope, to: run, of: route)
    }

    /// One ``deliver(_:for:)`` for each subscription of `run`; a stacked event's in reverse when
    /// this target has lanes, which run stacked deliveries newest first, so that they still run
    /// in registration order.
    func deliverOneByOne(_ envelope: _EventEnvelope, to run: Range<Int>, of route: _Route) {
        if usesLanes && envelope.metadata.method == .stack {
            route.forEach(in: run.reversed()) { deliver(envelope, for: $0) }
        } else {
            route.forEach(in: run) { deliver(envelope, for: $0) }
        }
    }

    var receiverDescription: String { String(describing: type(of: self)) }
    var receiverName: String { receiverDescription }
    var usesLanes: Bool { true }
    var runsOnSender: Bool { false }
}
