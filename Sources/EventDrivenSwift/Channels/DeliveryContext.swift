// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// Where a channel or state subscriber's handler runs; the subscriber chooses it when it
/// subscribes.
///
/// The first five cases are those of ``ExecuteEventOn``, with the same meaning; a subscriber
/// can also name a dispatch queue or an ``EventThread`` of its own.
///
/// ```swift
/// bus.subscribe(scores, on: .synchronous) { score in … }          // the publisher's thread
/// bus.subscribe(scores, on: .queue(myQueue)) { score in … }       // one at a time on myQueue
/// bus.subscribe(scores, on: .thread(processor)) { score in … }    // on an EventThread
/// bus.subscribe(scores, on: .mainActor) { score in … }            // on the main actor
/// ```
public enum DeliveryContext: Sendable {
    /// The publishing thread, before `publish` or `set` returns, in subscription order.
    /// See ``ExecuteEventOn/synchronous``.
    case synchronous
    /// The serial context the subscriber subscribed from. See ``ExecuteEventOn/requesterThread``.
    case requesterThread
    /// The bus's listener thread. See ``ExecuteEventOn/listenerThread``.
    case listenerThread
    /// A task of its own for every delivery; the handler must be thread-safe.
    /// See ``ExecuteEventOn/taskThread``.
    case taskThread
    /// The main actor, in order. See ``ExecuteEventOn/mainActor``.
    case mainActor
    /// `queue`, one delivery at a time and in order, even when `queue` is concurrent.
    case queue(DispatchQueue)
    /// The thread of `thread`, one delivery at a time, in the order of its other callbacks.
    ///
    /// The subscription is not one of the thread's callbacks: end it yourself when you cancel
    /// the thread, or deliveries after the cancel are counted as discarded.
    case thread(EventThread)

    /// The context that `executeOn` names.
    public init(_ executeOn: ExecuteEventOn) {
        switch executeOn {
        case .requesterThread: self = .requesterThread
        case .listenerThread: self = .listenerThread
        case .taskThread: self = .taskThread
        case .mainActor: self = .mainActor
        case .synchronous: self = .synchronous
        }
    }
}

extension EventBus {
    /// Resolves `context` to a delivery target at subscription time; `isolation` is the
    /// subscriber's (`#isolation`).
    func target(for context: DeliveryContext, isolation: (any Actor)?) -> any _DeliveryTarget {
        switch context {
        case .synchronous: target(for: ExecuteEventOn.synchronous, isolation: isolation)
        case .requesterThread: target(for: ExecuteEventOn.requesterThread, isolation: isolation)
        case .listenerThread: target(for: ExecuteEventOn.listenerThread, isolation: isolation)
        case .taskThread: target(for: ExecuteEventOn.taskThread, isolation: isolation)
        case .mainActor: target(for: ExecuteEventOn.mainActor, isolation: isolation)
        case .queue(let queue): _Mailbox(executor: .queue(queue), counters: counters)
        case .thread(let thread): thread.mailbox
        }
    }
}
