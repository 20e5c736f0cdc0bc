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
    /// Drains submitted to a global queue, one at a time, for a listener's own serial context.
    /// A drain keeps looking for ``lingerNanoseconds`` before going idle (see ``_DrainPacing``).
    case globalQueue(DispatchQueue)

    /// How long a drain on a global queue keeps looking after its last batch: shorter than a
    /// mailbox thread's 40 µs, since it holds a worker thread that other work shares.
    static var lingerNanoseconds: UInt64 { 20_000 }

    /// How long a drain on a global queue runs before it submits itself again while a stream
    /// piles up (ten times as long in any case), so that the listeners' contexts sharing the
    /// queue's few threads take turns instead of one context keeping a thread for as long as
    /// events stream in.
    static var sliceNanoseconds: UInt64 { 100_000 }

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
            drain(mailbox, on: queue, lingerNanoseconds: 0, sliceNanoseconds: nil)
        case .actor(let actor):
            Task { await Self.drain(mailbox, isolatedTo: actor) }
        case .mainQueue(let watch):
            watch.submitted(mailbox, eventType: eventType)
            drain(mailbox, on: .main, lingerNanoseconds: 0, sliceNanoseconds: nil, watch: watch)
        case .globalQueue(let queue):
            drain(
                mailbox, on: queue, lingerNanoseconds: Self.lingerNanoseconds, sliceNanoseconds: Self.sliceNanoseconds)
        }
    }

    private func drain(
        _ mailbox: _Mailbox, on queue: DispatchQueue, lingerNanoseconds: UInt64, sliceNanoseconds: UInt64?,
        watch: _MainQueueWatch? = nil
    ) {
        // Like a mailbox thread, the drain names its mailbox as the current receiver, so a
        // `.requesterThread` listener registered from a handler delivers on this context.
        queue.async {
            watch?.started()
            let sliceEnded = _ReceiverContext.$current.withValue(_ReceiverContext(mailbox: mailbox)) {
                mailbox.runUntilIdle(lingerNanoseconds: lingerNanoseconds, sliceNanoseconds: sliceNanoseconds)
            }
            // Still scheduled: this drain stays the mailbox's only one, resumed behind the
            // queue's other work.
            if sliceEnded {
                drain(mailbox, on: queue, lingerNanoseconds: lingerNanoseconds, sliceNanoseconds: sliceNanoseconds)
            }
        }
    }

    /// One drain of `mailbox`, run on `actor`'s executor.
    private static func drain(_ mailbox: _Mailbox, isolatedTo actor: isolated any Actor) async {
        _ReceiverContext.$current.withValue(_ReceiverContext(mailbox: mailbox)) {
            _ = mailbox.runUntilIdle()
        }
    }
}
