// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// What runs a mailbox's drains.
enum _MailboxExecutor: Sendable {
    /// A dedicated thread that parks while the mailbox is idle.
    case thread(_MailboxThread)
    /// Drains submitted to a dispatch queue, one at a time (``_QueueDrain``): a queue named with
    /// `.queue(_:)`, or an `OperationQueue`'s underlying queue. A drain goes idle as soon as
    /// nothing is pending.
    case queue(_QueueDrain)
    /// Drains run isolated to an actor, one at a time, for a listener registered from that
    /// actor's code (`.requesterThread`); each drain is a task that hops onto the actor.
    case actor(any Actor)
    /// Drains submitted to the main queue, one at a time, for main-actor delivery; the bus's
    /// ``_MainQueueWatch`` reports once when the main queue leaves a drain waiting.
    case mainQueue(_QueueDrain)
    /// Drains submitted to a global queue, one at a time, for a listener's own serial context. A
    /// drain keeps looking for ``lingerNanoseconds`` before going idle (see ``_DrainPacing``).
    case globalQueue(_QueueDrain)

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
        case .queue(let drain): drain.queue === DispatchQueue.main
        case .actor(let actor): actor is MainActor
        case .thread, .globalQueue: false
        }
    }

    /// Where the drains run, in words, for errors and logs.
    var receiverDescription: String {
        switch self {
        case .thread(let thread): thread.name
        case .queue(let drain):
            drain.queue === DispatchQueue.main ? "the main queue" : "the queue '\(drain.queue.label)'"
        case .actor(let actor): "the actor \(type(of: actor))"
        case .mainQueue: "the main actor"
        case .globalQueue: "a serial context of its own"
        }
    }

    /// The queue drain of a queue-based executor; `nil` for a thread or an actor.
    var queueDrain: _QueueDrain? {
        switch self {
        case .queue(let drain), .mainQueue(let drain), .globalQueue(let drain): drain
        case .thread, .actor: nil
        }
    }

    /// Starts a drain of `mailbox`, whose drainer was idle; `eventType` is the type of the
    /// event that found it idle, for the main queue's watch.
    ///
    /// Never inlined: inlined into a mailbox's enqueue, it added 18 instructions to every queued
    /// event, woken or not (`Benchmarks/tools/instructions.py`, S1 on the listener thread).
    @inline(never)
    func wake(_ mailbox: _Mailbox, for eventType: (any Eventable.Type)? = nil) {
        mailbox.drainRequests.increment()
        switch self {
        case .thread(let thread):
            thread.wake()
        case .actor(let actor):
            Task { await Self.drain(mailbox, isolatedTo: actor) }
        case .queue(let drain), .mainQueue(let drain), .globalQueue(let drain):
            drain.start(mailbox, for: eventType)
        }
    }

    /// One drain of `mailbox`, run on `actor`'s executor. Like a drain on a global queue, it
    /// takes turns (``sliceNanoseconds``): while events keep coming it yields the actor, and the
    /// thread, to the jobs waiting behind it, then goes on (`StarvationTests`).
    private static func drain(_ mailbox: _Mailbox, isolatedTo actor: isolated any Actor) async {
        while _ReceiverContext.withCurrent(mailbox, { mailbox.runUntilIdle(sliceNanoseconds: sliceNanoseconds) }) {
            await Task.yield()
        }
    }
}
