// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// Where a handler runs: a listener's (`executeOn:`), a channel's or a state's subscriber's
/// (`on:`); the receiver chooses it when it registers.
///
/// ```swift
/// bus.listen(Reading.self, executeOn: .listenerThread) { reading, _ in … }  // the bus's listener thread
/// bus.listen(Reading.self, executeOn: .queue(myQueue)) { reading, _ in … }  // one at a time on myQueue
/// bus.subscribe(scores, on: .synchronous) { score in … }                    // the publisher's thread
/// bus.subscribe(scores, on: .thread(processor)) { score in … }              // on an EventThread
/// ```
///
/// Without `executeOn:` or `on:`, a closure runs where it was written (the main actor for a
/// closure written in `@MainActor` code), which is ``requesterThread`` for any other closure.
public enum DeliveryContext: Sendable, Hashable {
    /// The serial context the receiver was registered from (the default), following the
    /// registering caller's isolation (`#isolation`, SPEC L3):
    /// - from `@MainActor` code: the main actor (top-level code in `main.swift` is such code);
    /// - from an actor's code: that actor;
    /// - inside an `EventThread` callback, or a callback that runs on the bus's listener thread or
    ///   in a serial context of its own: that thread or context (not inside a `Task` the callback
    ///   starts: it runs elsewhere), when it belongs to the bus registered on; a thread or context
    ///   of another bus counts as no isolation (below), since each bus runs its listeners on its
    ///   own threads (SPEC D6);
    /// - inside an `OperationQueue` whose underlying queue is not the main queue: that queue;
    /// - otherwise (no isolation, on any thread, the main thread included): a serial context of
    ///   the receiver's own, run on the global dispatch queues.
    ///
    /// Main-actor deliveries need a running main queue (an app, `dispatchMain()`, or an async
    /// `main`); a backlog that waits over a second is logged once, naming the event type.
    /// Handlers run one at a time, in the order of SPEC D3.
    case requesterThread
    /// The bus's listener thread, shared by every `.listenerThread` receiver of the bus, one
    /// handler at a time. A slow handler delays the others.
    case listenerThread
    /// A task of its own for every delivery, so handlers may run concurrently and in any
    /// order; the handler must be thread-safe.
    case taskThread
    /// The main actor, one handler at a time, in order. The main queue must be running
    /// (an app, `dispatchMain()`, or an async `main`).
    case mainActor
    /// The dispatching (or publishing) thread, before the dispatch call returns, in
    /// registration order. The handler may run on several threads at once when several
    /// threads dispatch.
    case synchronous
    /// `queue`, one delivery at a time and in order, even when `queue` is concurrent.
    case queue(DispatchQueue)
    /// The thread of `thread`, one delivery at a time, in the order of its other callbacks.
    ///
    /// The registration is not one of the thread's callbacks: cancel it yourself when you
    /// cancel the thread, or deliveries after the thread's cancel are counted as discarded.
    /// `thread` must belong to the bus registered on: a thread of another bus fails the
    /// registration with ``EventDrivenError/Code/threadOfAnotherBus``.
    case thread(EventThread)

    /// `true` when both name the same context: the same case, and for ``queue(_:)`` and
    /// ``thread(_:)`` the same queue or thread.
    public static func == (lhs: DeliveryContext, rhs: DeliveryContext) -> Bool {
        switch (lhs, rhs) {
        case (.requesterThread, .requesterThread), (.listenerThread, .listenerThread), (.taskThread, .taskThread),
            (.mainActor, .mainActor), (.synchronous, .synchronous):
            true
        case (.queue(let left), .queue(let right)): left === right
        case (.thread(let left), .thread(let right)): left === right
        default: false
        }
    }

    /// Hashes the case and, for ``queue(_:)`` and ``thread(_:)``, the identity of the queue or
    /// thread.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .requesterThread: hasher.combine(0)
        case .listenerThread: hasher.combine(1)
        case .taskThread: hasher.combine(2)
        case .mainActor: hasher.combine(3)
        case .synchronous: hasher.combine(4)
        case .queue(let queue): hasher.combine(ObjectIdentifier(queue))
        case .thread(let thread): hasher.combine(ObjectIdentifier(thread))
        }
    }
}
