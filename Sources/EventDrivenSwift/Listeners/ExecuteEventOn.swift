/// Where a listener's callback runs.
public enum ExecuteEventOn: CaseIterable, Sendable {
    /// The serial context the listener was registered from (the default):
    /// - inside an `EventThread` callback: that thread;
    /// - on the main thread of an Apple platform: the main queue;
    /// - inside an `OperationQueue` with an underlying queue: that queue;
    /// - otherwise a serial context of the listener's own, run on the global dispatch queues.
    ///
    /// On Linux the main thread is treated like any other thread, since a server may never run
    /// the main queue; use ``mainActor`` to ask for the main actor explicitly.
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
