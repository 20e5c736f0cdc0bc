// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import Observable
import Synchronization

/// A persistent thread that receives events: subclass it, override ``registerEventListeners()``
/// and register a callback per event type.
///
/// ```swift
/// final class TemperatureProcessor: EventThread {
///     override func registerEventListeners() {
///         addEventCallback(onTemperatureEvent, forEventType: TemperatureEvent.self)
///     }
///     func onTemperatureEvent(_ event: TemperatureEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime) {}
/// }
/// let processor = TemperatureProcessor()   // registered and running
/// ```
///
/// The thread starts when it is created, runs its callbacks one at a time in the order of
/// SPEC D3, and parks (using no CPU) once nothing has arrived for 40 µs. It is observable
/// (the `Observable` module's `ObservableClass`).
///
/// Callbacks that are methods of the thread (`onTemperatureEvent` above) keep it alive, as a
/// running `Thread` is kept alive: call ``cancel(draining:)`` to stop it, after which it is
/// freed once your own references are gone.
// @unchecked Sendable: mutable state lives in the lock-guarded mailbox and `subscriptions`
open class EventThread: ObservableClass, @unchecked Sendable {
    /// The bus this thread listens on.
    public let bus: EventBus
    let mailbox: _Mailbox
    private let runner: _MailboxThread?
    private let registrar: any _SubscriptionRegistrar
    private let subscriptions = LockedValue<[_Subscription]>([])
    private let isCancelledFlag = Atomic<Bool>(false)

    /// Creates the thread on `bus`, calls ``registerEventListeners()``, and starts it.
    public required init(bus: EventBus = EventCentral.shared) {
        self.bus = bus
        let runner = _MailboxThread(
            name: "EventThread(\(type(of: self)))",
            systemName: _ThreadName.make(bus: bus.label, role: "\(type(of: self))"))
        self.runner = runner
        // A pool's threads are one receiver to its handlers (``_MailboxLimit/group``).
        let pool = _EventThreadRegistration.override.map { ObjectIdentifier($0) }
        self.mailbox = _Mailbox(
            executor: .thread(runner), counters: bus.counters,
            limit: _MailboxLimit(type(of: self).mailboxPolicy, receiver: runner.name, bus: bus, group: pool))
        self.registrar = _EventThreadRegistration.override ?? bus
        super.init()
        registerEventListeners()
        runner.start(mailbox)
    }

    /// How many events may wait for threads of this class, and what happens when more arrive;
    /// ``EventMailboxPolicy/unbounded`` unless a subclass overrides it. See ``EventMailboxPolicy``.
    ///
    /// - Precondition: A ``EventMailboxPolicy/bounded(capacity:whenFull:)`` capacity of at least
    ///   1, checked when each thread is made.
    open class var mailboxPolicy: EventMailboxPolicy { .unbounded }

    /// Creates a receiver whose callbacks run on the main queue instead of a thread of its own.
    init(mainActorBus bus: EventBus) {
        self.bus = bus
        self.runner = nil
        self.mailbox = _Mailbox(
            executor: .mainQueue(.mainActor(watch: bus.mainQueueWatch)), counters: bus.counters,
            limit: _MailboxLimit(type(of: self).mailboxPolicy, receiver: "UIEventThread(\(type(of: self)))", bus: bus))
        self.registrar = _EventThreadRegistration.override ?? bus
        super.init()
        registerEventListeners()
    }

    deinit {
        // Reached only when no callback holds the thread; stop the runner it leaves behind.
        for subscription in subscriptions.withLock({ $0 }) { subscription.cancel() }
        mailbox.close()
    }

    /// Override to register your callbacks with ``addEventCallback(_:forEventType:)``.
    /// Called once, from the initializer.
    open func registerEventListeners() {}

    /// Registers `callback` for events of type `TEvent` dispatched on ``bus``.
    ///
    /// Several callbacks may be registered for one type; each event reaches them in the order
    /// they were added.
    /// - Returns: A handle whose `cancel()` stops further deliveries to this callback.
    ///
    /// Final, like the other registration methods, so that a call is bound at compile time and
    /// the callback specialized for `TEvent` in the caller's module.
    @discardableResult
    @inlinable
    public final func addEventCallback<TEvent: Eventable>(
        _ callback: @escaping TypedEventCallback<TEvent>, forEventType: TEvent.Type = TEvent.self
    ) -> EventListenerHandle {
        addEventCallback(forEventType) { event, metadata in
            callback(event, metadata.priority, metadata.dispatchTime)
        }
    }

    /// Registers `callback` for events of type `TEvent`, with their full ``EventMetadata``.
    @discardableResult
    @inlinable
    public final func addEventCallback<TEvent: Eventable>(
        _ type: TEvent.Type, _ callback: @escaping @Sendable (TEvent, EventMetadata) -> Void
    ) -> EventListenerHandle {
        _addEventCallback(type, _ErasedHandler(callback))
    }

    /// ``addEventCallback(_:_:)-(_,(TEvent,EventMetadata)->Void)`` with the handler built, in the
    /// caller's module, for the event type.
    @usableFromInline
    func _addEventCallback(
        _ type: any Eventable.Type, _ callback: _ErasedHandler
    ) -> EventListenerHandle {
        if type == AllEvents.self {
            let error = EventDrivenError.catchAllSubscription(api: "addEventCallback")
            bus.report(error)
            return EventListenerHandle(failedWith: error)
        }
        let subscription = _Subscription(
            type, owner: nil, target: mailbox, interest: .all, registrar: registrar,
            handlers: callback)
        // The flag is checked under the lock that `cancel` sets it under: either the cancel
        // finds the subscription in the list, or the subscription sees the cancel.
        let accepted = subscriptions.withLock { subscriptions in
            guard !isCancelled else { return false }
            subscriptions.append(subscription)
            return true
        }
        guard accepted else {
            let error = EventDrivenError.threadCancelled(thread: String(describing: Swift.type(of: self)))
            bus.report(error)
            return EventListenerHandle(failedWith: error)
        }
        registrar.register(subscription)
        // A cancel between the append and the registration unregistered it before it was
        // registered; it is inactive now, so remove what the registration left.
        if !subscription.isActive { registrar.unregister(subscription) }
        return EventListenerHandle(subscription)
    }

    /// `true` once the thread has been cancelled.
    public var isCancelled: Bool { isCancelledFlag.load(ordering: .acquiring) }

    /// Deliveries waiting for this thread, plus those of the batch it is running: one per
    /// callback registered for each event's type.
    public var pendingEventCount: Int { mailbox.load }

    /// Stops the thread.
    ///
    /// - Parameter draining: `false` (the default) finishes the callback in progress and
    ///   discards everything else pending; `true` stops accepting new events and lets the
    ///   thread deliver what is pending first.
    /// - Returns: How many pending events were discarded.
    ///
    /// Called from another thread, `cancel` waits until the thread has exited; called from one
    /// of the thread's own callbacks, it returns at once and the thread stops once the callback
    /// returns. On the main thread it waits too, for the callback in progress (with `draining`,
    /// for every pending callback): the wait is what lets it return the exact count and release
    /// the callbacks. Cancel from a task or another thread when callbacks can be slow; a
    /// ``UIEventThread``, whose callbacks run on the main queue, never waits. Afterwards every callback is released, so the thread is freed once your own
    /// references are gone.
    @discardableResult
    open func cancel(draining: Bool = false) -> Int {
        let registered: [_Subscription]? = subscriptions.withLock { subscriptions in
            guard !isCancelledFlag.exchange(true, ordering: .acquiringAndReleasing) else { return nil }
            defer { subscriptions = [] }
            return subscriptions
        }
        guard let registered else { return 0 }
        for subscription in registered { registrar.unregister(subscription) }
        if draining {
            mailbox.closeAfterDraining()
            // After what is pending, which still runs its callbacks: also when this is one of them
            // (the thread stops once it returns) or the main queue drains a UIEventThread.
            mailbox.addBarrier { for subscription in registered { subscription.cancel() } }
            runner?.waitForExit()
            return 0
        }
        let isOwnThread = runner?.isCurrent ?? (_ReceiverContext.current?.mailbox === mailbox)
        var discarded = mailbox.close()
        if isOwnThread {
            discarded += mailbox.remainingInCurrentBatch
        } else if let runner {
            runner.waitForExit()
            discarded += mailbox.discardedFromLastBatch
        }
        // A UIEventThread cancelled off the main queue cannot wait for the main queue; what its
        // batch in progress skips is counted in the bus statistics only.
        for subscription in registered { subscription.cancel() }
        return discarded
    }
}

/// Lets a pool build its threads without registering them on the bus directly.
enum _EventThreadRegistration {
    @TaskLocal static var override: (any _SubscriptionRegistrar)?
}
