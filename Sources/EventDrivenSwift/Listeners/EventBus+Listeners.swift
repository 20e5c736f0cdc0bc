// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation

extension EventBus {
    /// Registers `callback` for events of type `E` on this bus, held by `owner` (weakly): the
    /// body of 5.2's `Event.addListener(owner, callback, executeOn: …)` and of the deprecated
    /// `bus.addListener(_:owner:executeOn:…)`.
    ///
    /// A callback isolated to an actor (a method of a `@MainActor` view model bound to it,
    /// `onTemperatureRatingEvent`) runs on that actor whatever `executeOn` says, as an unapplied
    /// method does; any other callback is a `@Sendable` function, which runs where `executeOn`
    /// says.
    ///
    /// Misuse (a `nil` owner, `.custom` without a filter, a negative `maximumAge`) registers
    /// nothing: the returned handle carries the ``EventListenerHandle/registrationError`` and
    /// the bus reports it to its error handler and log.
    @usableFromInline
    func _addListener<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject?,
        executeOn: DeliveryContext = .requesterThread,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<E>? = nil,
        isolation: (any Actor)? = #isolation,
        _ callback: @escaping IsolatedEventCallback<E>
    ) -> EventListenerHandle {
        let typeName = String(reflecting: type)
        guard let owner else { return failedRegistration(.nilOwner(eventType: typeName)) }
        let callbackIsolation = callback.isolation
        return listen(
            type, owner: owner, executeOn: callbackIsolation == nil ? executeOn : .requesterThread,
            interestedIn: interestedIn, maximumAge: maximumAge, customFilter: customFilter,
            isolation: callbackIsolation ?? isolation
        ) { event, metadata in
            _callOnItsIsolation(callback, event, metadata)
        }
    }

    /// Registers an unapplied method of `owner` (`Owner.onEvent`), called with the weakly held
    /// owner, so that the listener never keeps its owner alive.
    ///
    /// ```swift
    /// handle = bus.addListener(TemperatureEvent.self, Thermostat.onTemperature, owner: self)  // in a class Thermostat
    /// ```
    ///
    /// A method isolated to an actor runs on that actor, whatever `executeOn` says: the method
    /// of a `@MainActor` view model runs on the main actor, in order, as with `.mainActor`; one
    /// of a class isolated to another global actor runs on that actor. (Swift converts such an
    /// unapplied method to a plain `@Sendable` function without a diagnostic, so the listener
    /// asks the method for its isolation, by applying it to `owner` once at registration.)
    /// Methods of an `actor` do not compile here; use ``listen(_:on:_:)-(_,_,(A,E)->Void)``.
    @discardableResult
    @inlinable
    public func addListener<E: Eventable, Owner: AnyObject>(
        _ type: E.Type,
        _ method: @escaping @Sendable (Owner) -> IsolatedEventCallback<E>,
        owner: Owner,
        executeOn: DeliveryContext = .requesterThread,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<E>? = nil,
        isolation: (any Actor)? = #isolation
    ) -> EventListenerHandle {
        let weakOwner = _WeakReference(owner)
        let methodIsolation = method(owner).isolation
        return listen(
            type, owner: owner, executeOn: methodIsolation == nil ? executeOn : .requesterThread,
            interestedIn: interestedIn, maximumAge: maximumAge, customFilter: customFilter,
            isolation: methodIsolation ?? isolation
        ) { event, metadata in
            guard let owner = weakOwner.object else { return }
            _callOnItsIsolation(method(owner), event, metadata)
        }
    }

    /// Registers `callback` with the full ``EventMetadata`` of each event.
    ///
    /// With a `nil` owner the listener lives until it is removed.
    @discardableResult
    @inlinable
    @_disfavoredOverload  // without `executeOn`, a call means the form that keeps the closure's isolation
    public func listen<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject? = nil,
        executeOn: DeliveryContext = .requesterThread,
        interestedIn: EventListenerInterest = .all,
        maximumAge: Int64 = 0,
        customFilter: TypedEventFilterCallback<E>? = nil,
        isolation: (any Actor)? = #isolation,
        _ callback: @escaping @Sendable (E, EventMetadata) -> Void
    ) -> EventListenerHandle {
        _listen(
            type, owner: owner, executeOn: executeOn, interestedIn: interestedIn, maximumAge: maximumAge,
            customFilter: customFilter, isolation: isolation, handler: _ErasedHandler(callback))
    }

    /// ``listen(_:owner:executeOn:interestedIn:maximumAge:customFilter:_:)`` with the handler
    /// built, in the caller's module, for the event type.
    @usableFromInline
    func _listen<E: Eventable>(
        _ type: E.Type,
        owner: AnyObject?,
        executeOn: DeliveryContext,
        interestedIn: EventListenerInterest,
        maximumAge: Int64,
        customFilter: TypedEventFilterCallback<E>?,
        isolation: (any Actor)?,
        handler: _ErasedHandler
    ) -> EventListenerHandle {
        if type == AllEvents.self { return failedRegistration(.catchAllSubscription(api: "listen")) }
        let typeName = String(reflecting: type)
        let interest: _Interest
        var filterIsolation: (any Actor)?
        switch interestedIn.kind {
        case .all:
            interest = .all
        case .latestOnly:
            interest = .latestOnly(registry.withLock { $0.tracker(for: ObjectIdentifier(type)) })
        case .youngerThan(let nanoseconds?):
            guard nanoseconds >= 0 else {
                return failedRegistration(.negativeMaximumAge(eventType: typeName, maximumAge: nanoseconds))
            }
            interest = .youngerThan(nanoseconds: UInt64(nanoseconds))
        case .youngerThan(nil):
            guard maximumAge >= 0 else {
                return failedRegistration(.negativeMaximumAge(eventType: typeName, maximumAge: maximumAge))
            }
            interest = .youngerThan(nanoseconds: UInt64(maximumAge))
        case .custom(let filter?):
            guard filter.takes(type) else {
                return failedRegistration(
                    .customFilterEventType(eventType: typeName, filterEventType: filter.eventTypeName))
            }
            interest = .custom(_EventFilter(accepts: filter.accepts))
        case .custom(nil):
            guard let customFilter else { return failedRegistration(.missingCustomFilter(eventType: typeName)) }
            filterIsolation = customFilter.isolation
            interest = .custom(
                _EventFilter { event, metadata in _callOnItsIsolation(customFilter, event as! E, metadata) })
        }
        let target = target(for: executeOn, isolation: isolation)
        if let filterIsolation, !runs(target, on: filterIsolation, executeOn: executeOn, isolation: isolation) {
            return failedRegistration(.customFilterIsolation(eventType: typeName))
        }
        if let error = unusableContextError(target) { return failedRegistration(error) }
        let subscription = _Subscription(
            type, owner: owner, target: target, interest: interest, registrar: self, handlers: handler)
        register(subscription)
        return EventListenerHandle(subscription)
    }

    /// Whether deliveries to `target` run isolated to `actor`: the main mailbox for the main actor,
    /// or the caller's own actor for `.requesterThread`.
    private func runs(
        _ target: any _DeliveryTarget, on actor: any Actor, executeOn: DeliveryContext, isolation: (any Actor)?
    ) -> Bool {
        if actor is MainActor { return target === mainMailbox }
        guard case .requesterThread = executeOn, let isolation else { return false }
        return isolation === actor
    }

    @usableFromInline
    func failedRegistration(_ error: EventDrivenError) -> EventListenerHandle {
        report(error)
        return EventListenerHandle(failedWith: error)
    }

    /// Why `target` cannot take this bus's deliveries, if it cannot:
    /// ``EventDrivenError/Code/threadOfAnotherBus`` when it is another bus's mailbox (`.thread(t)`
    /// of a `t` on another bus: that bus's shutdown would stop it and its statistics count what
    /// runs there), ``EventDrivenError/Code/threadCancelled`` when it is a mailbox that was
    /// closed (the `.requesterThread` of a callback whose EventThread cancelled itself,
    /// `.thread(t)` of a cancelled `t`): nothing would ever run there.
    func unusableContextError(_ target: any _DeliveryTarget) -> EventDrivenError? {
        guard let mailbox = target as? _Mailbox else { return nil }
        if mailbox.counters !== counters {
            return .threadOfAnotherBus(thread: mailbox.executor.receiverName, bus: label)
        }
        guard mailbox.isClosed.load(ordering: .acquiring) else { return nil }
        return .threadCancelled(thread: mailbox.executor.receiverName)
    }

    /// Resolves `context` to a delivery target at registration time; `isolation` is the
    /// registering caller's (`#isolation`).
    func target(for context: DeliveryContext, isolation: (any Actor)?) -> any _DeliveryTarget {
        if let target = testingTarget(for: context) { return target }  // Testing/EventBus+Testing.swift
        switch context {
        case .listenerThread: return listenerMailbox
        case .taskThread: return _TaskTarget(counters: counters, tasks: tasks)
        case .mainActor: return mainMailbox
        case .synchronous: return synchronousTarget
        case .requesterThread: return requesterMailbox(isolation: isolation)
        case .queue(let queue): return _Mailbox(executor: .queue(.named(queue)), counters: counters)
        case .thread(let thread): return thread.mailbox
        }
    }

    /// The serial context of the caller (SPEC L3; see ``DeliveryContext/requesterThread``).
    ///
    /// The caller's actor comes first: it is the only safe place for a handler that touches
    /// that actor's state. The main thread without main-actor isolation is no reason to choose
    /// the main queue, which a command-line program or a server may never run.
    private func requesterMailbox(isolation: (any Actor)?) -> _Mailbox {
        if let isolation {
            if isolation is MainActor { return mainMailbox }
            return _Mailbox(executor: .actor(isolation), counters: counters)
        }
        // A context of another bus (a callback of its EventThread) is not this bus's to use:
        // such a caller gets a serial context of its own, as on a plain thread.
        if let context = _ReceiverContext.current, context.mailbox.counters === counters {
            return context.mailbox
        }
        if let queue = OperationQueue.current?.underlyingQueue, queue !== DispatchQueue.main {
            return _Mailbox(executor: .queue(.named(queue)), counters: counters)
        }
        return _Mailbox(executor: .globalQueue(.serialContext()), counters: counters)
    }
}

/// A weak reference that can cross threads.
@usableFromInline
struct _WeakReference<Object: AnyObject>: @unchecked Sendable {  // a weak let: loading it is atomic in the runtime
    @usableFromInline weak let object: Object?
    @usableFromInline init(_ object: Object) { self.object = object }
}
