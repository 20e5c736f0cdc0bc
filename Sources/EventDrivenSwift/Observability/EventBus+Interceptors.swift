// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

extension EventBus {
    /// Adds `interceptor` to this bus: from now on it sees every dispatch and every delivery
    /// (see ``EventInterceptor``), until the returned handle's ``EventInterceptorHandle/cancel()``.
    ///
    /// Interceptors wrap handlers in the order they were added, the first outermost.
    @discardableResult
    public func addInterceptor(_ interceptor: some EventInterceptor) -> EventInterceptorHandle {
        let token = counters.observation.add(interceptor)
        interceptor.attached(to: self)
        return EventInterceptorHandle(bus: self, token: token)
    }

    /// Whether an event carries the `ServiceContext` current where it is dispatched, to be
    /// current around its handlers and handed over by ``eventsWithContext(of:bufferingPolicy:)``.
    ///
    /// One rule decides it, and nothing else: this property, whose default (``init(label:logger:)``)
    /// is whether an instrument had been bootstrapped with `InstrumentationSystem` when the bus
    /// was created; ``init(label:logger:propagatesServiceContext:)`` sets it either way. An interceptor never changes it: a
    /// metrics interceptor leaves handlers seeing what they saw without it. (Interceptors see
    /// the dispatcher's context either way, in ``EventDeliveryInfo/serviceContext``; a tracing
    /// interceptor that runs the handler inside a span of its own makes that span's context
    /// current, as any code that wraps a handler may.) Its cost, and the rule, are in the
    /// Observability article.
    ///
    /// While it is off, a handler sees whatever context is current where it runs: none on the
    /// bus's threads and serial contexts, the dispatcher's own on ``DeliveryContext/synchronous``
    /// (the dispatching thread) and ``DeliveryContext/taskThread`` (a task inherits the
    /// task-local values of the code that starts it).
    ///
    /// ```swift
    /// let bus = EventBus(label: "orders", propagatesServiceContext: true)
    /// EventCentral.shared.propagatesServiceContext = true
    /// ```
    public var propagatesServiceContext: Bool {
        get { counters.observation.propagatesContext }
        set { counters.observation.propagatesContext = newValue }
    }

    /// The interceptors added to this bus and not removed, in the order they were added.
    public var interceptors: [any EventInterceptor] { counters.observation.interceptors }

    /// Deliveries waiting in the bus's serial receivers (EventThreads, the listener thread,
    /// requester contexts, the main actor, the threads of pools), plus those of the batches they
    /// are running, by kind of receiver. Kinds with none are left out. For a depth gauge; see
    /// ``EventReceiverKind``.
    public func pendingDeliveries() -> [EventReceiverKind: Int] {
        var depths: [EventReceiverKind: Int] = [:]
        for mailbox in receivingMailboxes {
            let load = mailbox.load
            if load > 0 { depths[mailbox.executor.receiverKind, default: 0] += load }
        }
        let pooled = subscribedPools.reduce(0) { sum, pool in
            sum + pool.metrics.threads.reduce(0) { $0 + $1.pending }
        }
        if pooled > 0 { depths[.pool, default: 0] += pooled }
        return depths
    }
}

/// Removes an interceptor from its bus.
public final class EventInterceptorHandle: EventSubscription {
    private weak let bus: EventBus?
    private let token: Int
    private let cancelled = Atomic<Bool>(false)

    init(bus: EventBus, token: Int) {
        self.bus = bus
        self.token = token
    }

    /// Removes the interceptor: deliveries already running finish through it; nothing after
    /// this call reaches it, not even a dispatch that was under way (held in an earlier
    /// interceptor's ``EventInterceptor/didDispatch(_:context:)``) when it was made. Safe to
    /// call more than once.
    public func cancel() {
        cancelled.store(true, ordering: .releasing)
        guard let bus, let interceptor = bus.counters.observation.remove(token) else { return }
        interceptor.detached(from: bus)
    }

    /// `true` until ``cancel()`` or the bus's release.
    public var isActive: Bool { !cancelled.load(ordering: .acquiring) && bus != nil }
}
