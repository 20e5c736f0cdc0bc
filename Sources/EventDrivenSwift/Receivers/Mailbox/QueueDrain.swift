// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// The drains of a mailbox that runs on a dispatch queue: a listener's own serial context (a
/// global queue), a queue named with `.queue(_:)`, the main queue for main-actor delivery. Each
/// drain is submitted as one block made with the mailbox, so starting a drain makes no closure and
/// no block. Measured with `Benchmarks/tools/malloccount.c`: a closure submitted with
/// `DispatchQueue.async` costs three allocations, a block made once costs one (libdispatch's record
/// of the submission, and none when a queue's own thread submits it).
///
/// Only one drain of a mailbox is scheduled at a time (the push that finds the mailbox idle starts
/// it; a drain whose slice ran out submits itself again), so one retain of the mailbox travels
/// with it and is released when the drain goes idle; so does the main queue's watch ticket.
final class _QueueDrain: Sendable {
    /// Runs the drain; the block captures it, and it never holds the block.
    private let runner: Runner
    /// What every submission hands to the queue.
    private let block: @Sendable @convention(block) () -> Void

    /// The queue the drains run on.
    var queue: DispatchQueue { runner.queue }

    /// - Parameters:
    ///   - lingerNanoseconds: How long a drain keeps looking before it goes idle (``_DrainPacing``).
    ///   - sliceNanoseconds: How long a drain runs before it submits itself again behind the
    ///     queue's other work; `nil` runs until idle.
    ///   - cutsBatches: `true` makes the slice a hard limit, cutting a batch short.
    ///   - watch: The main queue's watch, for main-actor delivery.
    private init(
        queue: DispatchQueue, lingerNanoseconds: UInt64, sliceNanoseconds: UInt64?, cutsBatches: Bool,
        watch: _MainQueueWatch?
    ) {
        let runner = Runner(
            queue: queue, lingerNanoseconds: lingerNanoseconds, sliceNanoseconds: sliceNanoseconds,
            cutsBatches: cutsBatches, watch: watch)
        self.runner = runner
        self.block = { runner.run() }
    }

    /// A listener's own serial context: a global queue whose few threads the contexts share, so a
    /// drain lingers a little (``_MailboxExecutor/lingerNanoseconds``) and takes turns
    /// (``_MailboxExecutor/sliceNanoseconds``).
    static func serialContext() -> _QueueDrain {
        _QueueDrain(
            queue: .global(), lingerNanoseconds: _MailboxExecutor.lingerNanoseconds,
            sliceNanoseconds: _MailboxExecutor.sliceNanoseconds, cutsBatches: false, watch: nil)
    }

    /// A queue the listener named: idle as soon as nothing is pending; the main queue named as a
    /// queue gets the main actor's slices too.
    static func named(_ queue: DispatchQueue) -> _QueueDrain {
        let isMain = queue === DispatchQueue.main
        return _QueueDrain(
            queue: queue, lingerNanoseconds: 0, sliceNanoseconds: isMain ? _MailboxExecutor.mainSliceNanoseconds : nil,
            cutsBatches: isMain, watch: nil)
    }

    /// Main-actor delivery: the main queue in slices, watched for a main queue that never runs.
    static func mainActor(watch: _MainQueueWatch) -> _QueueDrain {
        _QueueDrain(
            queue: .main, lingerNanoseconds: 0, sliceNanoseconds: _MailboxExecutor.mainSliceNanoseconds,
            cutsBatches: true, watch: watch)
    }

    /// Names the mailbox this object drains; called once, by the mailbox's initializer.
    func attach(_ mailbox: _Mailbox) {
        // Unretained: the mailbox owns this object; each submitted drain holds its own retain.
        let address = UInt(bitPattern: Unmanaged.passUnretained(mailbox).toOpaque())
        let attached = runner.mailbox.compareExchange(expected: 0, desired: address, ordering: .releasing).exchanged
        precondition(attached, "a queue drain serves one mailbox")
    }

    /// Submits a drain of the attached mailbox, whose drainer was idle; `eventType` is the type of
    /// the event that found it idle, for the main queue's watch.
    func start(_ mailbox: _Mailbox, for eventType: (any Eventable.Type)?) {
        // Released by the drain when it goes idle, or handed to the drain it submits.
        _ = Unmanaged.passRetained(mailbox)
        submit(mailbox, for: eventType)
    }

    /// Submits the drain, with the retain of the mailbox that the caller hands over.
    fileprivate func submit(_ mailbox: _Mailbox, for eventType: (any Eventable.Type)?) {
        if let watch = runner.watch {
            runner.ticket.store(watch.submitted(mailbox, eventType: eventType), ordering: .releasing)
        }
        runner.queue.async(execute: block)
    }

    /// What a drain runs.
    fileprivate final class Runner: Sendable {
        let queue: DispatchQueue
        let lingerNanoseconds: UInt64
        let sliceNanoseconds: UInt64?
        let cutsBatches: Bool
        let watch: _MainQueueWatch?
        /// The mailbox's address (see ``attach(_:)``).
        let mailbox = Atomic<UInt>(0)
        /// The watch's ticket of the drain submitted last.
        let ticket = Atomic<UInt64>(0)

        init(
            queue: DispatchQueue, lingerNanoseconds: UInt64, sliceNanoseconds: UInt64?, cutsBatches: Bool,
            watch: _MainQueueWatch?
        ) {
            self.queue = queue
            self.lingerNanoseconds = lingerNanoseconds
            self.sliceNanoseconds = sliceNanoseconds
            self.cutsBatches = cutsBatches
            self.watch = watch
        }

        func run() {
            watch?.started(ticket.load(ordering: .acquiring))
            // Unretained: the retain that ``start(_:for:)`` took holds the mailbox until the drain ends.
            let hold = Unmanaged<_Mailbox>.fromOpaque(
                UnsafeRawPointer(bitPattern: mailbox.load(ordering: .acquiring)).unsafelyUnwrapped)
            hold._withUnsafeGuaranteedRef { mailbox in
                // Like a mailbox thread, the drain names its mailbox as the current receiver, so a
                // `.requesterThread` listener registered from a handler delivers on this context.
                let sliceEnded = _ReceiverContext.withCurrent(mailbox) {
                    mailbox.runUntilIdle(
                        lingerNanoseconds: lingerNanoseconds, sliceNanoseconds: sliceNanoseconds,
                        cutsBatches: cutsBatches)
                }
                // Still scheduled: resumed behind the queue's other work, keeping the retain.
                if sliceEnded, let drain = mailbox.executor.queueDrain { return drain.submit(mailbox, for: nil) }
                hold.release()
            }
        }
    }
}
