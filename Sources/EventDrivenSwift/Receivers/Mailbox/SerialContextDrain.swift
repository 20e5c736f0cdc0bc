// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// The drains of a listener's own serial context (``_MailboxExecutor/globalQueue(_:)``): each is
/// submitted to a global queue as one block made with the context, so starting a drain makes no
/// closure and no block. Measured with `Benchmarks/tools/malloccount.c`: a closure submitted with
/// `DispatchQueue.async` costs three allocations, a block made once costs one (libdispatch's record
/// of the submission, and none when a queue's own thread submits it).
///
/// Only one drain of a mailbox is scheduled at a time (the push that finds the mailbox idle starts
/// it; a drain whose slice ran out submits itself again), so one retain of the mailbox travels
/// with it and is released when the drain goes idle.
final class _SerialContextDrain: Sendable {
    /// Runs the drain; the block captures it, and it never holds the block.
    private let runner: Runner
    /// What every submission hands to the queue.
    private let block: @Sendable @convention(block) () -> Void

    init(queue: DispatchQueue) {
        let runner = Runner(queue: queue)
        self.runner = runner
        self.block = { runner.run() }
    }

    /// Names the mailbox this context drains; called once, by the mailbox's initializer.
    func attach(_ mailbox: _Mailbox) {
        // Unretained: the mailbox owns this object; each submitted drain holds its own retain.
        runner.mailbox.store(UInt(bitPattern: Unmanaged.passUnretained(mailbox).toOpaque()), ordering: .releasing)
    }

    /// Submits a drain of the attached mailbox, whose drainer was idle.
    func start(_ mailbox: _Mailbox) {
        // Released by the drain when it goes idle, or handed to the drain it submits.
        _ = Unmanaged.passRetained(mailbox)
        runner.queue.async(execute: block)
    }

    /// Submits the drain again, with the retain the ending one held.
    fileprivate func resume() {
        runner.queue.async(execute: block)
    }

    /// What a drain runs.
    fileprivate final class Runner: Sendable {
        let queue: DispatchQueue
        /// The mailbox's address (see ``attach(_:)``).
        let mailbox = Atomic<UInt>(0)

        init(queue: DispatchQueue) { self.queue = queue }

        func run() {
            let hold = Unmanaged<_Mailbox>.fromOpaque(
                UnsafeRawPointer(bitPattern: mailbox.load(ordering: .acquiring)).unsafelyUnwrapped)
            // Unretained: the retain that ``start(_:)`` took holds the mailbox until the drain ends.
            hold._withUnsafeGuaranteedRef { mailbox in
                // Like a mailbox thread, the drain names its mailbox as the current receiver, so a
                // `.requesterThread` listener registered from a handler delivers on this context.
                let sliceEnded = _ReceiverContext.withCurrent(mailbox) {
                    mailbox.runUntilIdle(
                        lingerNanoseconds: _MailboxExecutor.lingerNanoseconds,
                        sliceNanoseconds: _MailboxExecutor.sliceNanoseconds)
                }
                // Still scheduled: resumed behind the queue's other work, keeping the retain.
                if sliceEnded, case .globalQueue(let drain) = mailbox.executor { return drain.resume() }
                hold.release()
            }
        }
    }
}
