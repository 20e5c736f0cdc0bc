// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// What runs a mailbox's drains.
enum _MailboxExecutor: Sendable {
    /// A dedicated thread that parks while the mailbox is idle.
    case thread(_MailboxThread)
    /// Drains submitted to a dispatch queue, one at a time: the main queue, or an
    /// `OperationQueue`'s underlying queue. A drain goes idle as soon as nothing is pending.
    case queue(DispatchQueue)
    /// Drains run isolated to an actor, one at a time, for a listener registered from that
    /// actor's code (`.requesterThread`); each drain is a task that hops onto the actor.
    case actor(any Actor)
    /// Drains submitted to the main queue, one at a time, for main-actor delivery; `watch`
    /// reports once when the main queue leaves a drain waiting (see ``_MainQueueWatch``).
    case mainQueue(_MainQueueWatch)
    /// Drains submitted to a global queue, one at a time, for a listener's own serial context
    /// (``_SerialContextDrain``). A drain keeps looking for ``lingerNanoseconds`` before going idle
    /// (see ``_DrainPacing``).
    case globalQueue(_SerialContextDrain)

    /// How long a drain on a global queue keeps looking after its last batch: shorter than a
    /// mailbox thread's 40 µs, since it holds a worker thread that other work shares.
    static var lingerNanoseconds: UInt64 { 20_000 }

    /// How long a drain on a global queue runs before it submits itself again while a stream
    /// piles up (ten times as long in any case), so that the listeners' contexts sharing the
    /// queue's few threads take turns instead of one context keeping a thread for as long as
    /// events stream in.
    static var sliceNanoseconds: UInt64 { 100_000 }

    /// How long a drain on the main queue runs before it submits itself again behind the main
    /// queue's other work (timers, input, rendering), cutting a batch short if need be: a backlog
    /// of main-actor deliveries never holds the main thread for much longer than this.
    static var mainSliceNanoseconds: UInt64 { 4_000_000 }

    /// `true` when the drains run on the main queue.
    var drainsOnMainQueue: Bool {
        switch self {
        case .mainQueue: true
        case .queue(let queue): queue === DispatchQueue.main
        case .actor(let actor): actor is MainActor
        case .thread, .globalQueue: false
        }
    }

    /// Where the drains run, in words, for errors and logs.
    var receiverDescription: String {
        switch self {
        case .thread(let thread): thread.name
        case .queue(let queue): queue === DispatchQueue.main ? "the main queue" : "the queue '\(queue.label)'"
        case .actor(let actor): "the actor \(type(of: actor))"
        case .mainQueue: "the main actor"
        case .globalQueue: "a serial context of its own"
        }
    }

    /// Starts a drain of `mailbox`, whose drainer was idle; `eventType` is the type of the
    /// event that found it idle, for the main queue's watch.
    func wake(_ mailbox: _Mailbox, for eventType: (any Eventable.Type)? = nil) {
        mailbox.drainRequests.increment()
        switch self {
        case .thread(let thread):
            thread.wake()
        case .queue(let queue):
            // The main queue named as a queue gets the main actor's slices too.
            let slice = queue === DispatchQueue.main ? Self.mainSliceNanoseconds : nil
            drain(mailbox, on: queue, lingerNanoseconds: 0, sliceNanoseconds: slice, cutsBatches: slice != nil)
        case .actor(let actor):
            Task { await Self.drain(mailbox, isolatedTo: actor) }
        case .mainQueue(let watch):
            drain(
                mailbox, on: .main, lingerNanoseconds: 0, sliceNanoseconds: Self.mainSliceNanoseconds,
                cutsBatches: true, watch: watch, eventType: eventType)
        case .globalQueue(let drain):
            drain.start(mailbox)
        }
    }

    /// Submits a drain of `mailbox` to `queue`; a drain whose slice ran out submits itself
    /// again, so that it stays the mailbox's only one and the order is kept.
    private func drain(
        _ mailbox: _Mailbox, on queue: DispatchQueue, lingerNanoseconds: UInt64, sliceNanoseconds: UInt64?,
        cutsBatches: Bool = false, watch: _MainQueueWatch? = nil, eventType: (any Eventable.Type)? = nil
    ) {
        let ticket = watch?.submitted(mailbox, eventType: eventType)
        // Like a mailbox thread, the drain names its mailbox as the current receiver, so a
        // `.requesterThread` listener registered from a handler delivers on this context.
        queue.async {
            if let ticket { watch?.started(ticket) }
            let sliceEnded = _ReceiverContext.withCurrent(mailbox) {
                mailbox.runUntilIdle(
                    lingerNanoseconds: lingerNanoseconds, sliceNanoseconds: sliceNanoseconds, cutsBatches: cutsBatches)
            }
            // Still scheduled: resumed behind the queue's other work.
            if sliceEnded {
                drain(
                    mailbox, on: queue, lingerNanoseconds: lingerNanoseconds, sliceNanoseconds: sliceNanoseconds,
                    cutsBatches: cutsBatches, watch: watch, eventType: eventType)
            }
        }
    }

    /// One drain of `mailbox`, run on `actor`'s executor.
    private static func drain(_ mailbox: _Mailbox, isolatedTo actor: isolated any Actor) async {
        _ReceiverContext.withCurrent(mailbox) {
            _ = mailbox.runUntilIdle()
        }
    }
}
