// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Where a listener's callback runs.
public enum ExecuteEventOn: CaseIterable, Sendable {
    /// The serial context the listener was registered from (the default), following the
    /// registering caller's isolation (`#isolation`, SPEC L3):
    /// - from `@MainActor` code: the main actor (top-level code in `main.swift` is such code);
    /// - from an actor's code: that actor;
    /// - inside an `EventThread` callback: that thread;
    /// - inside an `OperationQueue` whose underlying queue is not the main queue: that queue;
    /// - otherwise (no isolation, on any thread, the main thread included): a serial context of
    ///   the listener's own, run on the global dispatch queues.
    ///
    /// Main-actor deliveries need a running main queue (an app, `dispatchMain()`, or an async
    /// `main`); a backlog that waits over a second is logged once, naming the event type.
    /// Callbacks run one at a time, in the order of SPEC D3.
    case requesterThread
    /// The bus's listener thread, shared by every `.listenerThread` listener of the bus, one
    /// callback at a time. A slow callback delays the others.
    case listenerThread
    /// A task of its own for every callback, so callbacks may run concurrently and in any
    /// order; the callback must be thread-safe.
    case taskThread
    /// The main actor, one callback at a time, in order. The main queue must be running
    /// (an app, `dispatchMain()`, or an async `main`).
    case mainActor
    /// The dispatching thread, before the dispatch call returns, in registration order. The
    /// callback may run on several threads at once when several threads dispatch.
    case synchronous
}
