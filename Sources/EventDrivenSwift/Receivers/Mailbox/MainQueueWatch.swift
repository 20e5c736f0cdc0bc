// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Logging
import Synchronization

/// Notices a main queue that is not being serviced (SPEC L3).
///
/// A main-actor mailbox drains on the main queue. A command-line program or a server that never
/// runs the main queue (no `dispatchMain()`, no async `main`, blocked on a semaphore) would
/// leave its main-actor listeners waiting forever without a word; once a drain has waited for
/// ``patienceNanoseconds``, the watch logs one warning naming the type of the event that
/// started the waiting drain.
///
/// One timer at a time, on a global queue, and only while a drain waits: it checks whether the
/// oldest waiting drain has started a second later. One warning per stall: the first drain the
/// main queue starts afterwards ends the stall, and the next one is reported again.
final class _MainQueueWatch: Sendable {
    /// How long a drain may wait for the main queue before the watch warns: one second.
    static var patienceNanoseconds: UInt64 { 1_000_000_000 }

    private let logger: Logger
    private let busLabel: String
    /// A pthread mutex (`LockedValue`), which ThreadSanitizer sees, unlike `Mutex` on Linux.
    private let state = LockedValue(_MainQueueWatchState())
    /// Warnings logged, for tests.
    private let warnings = Atomic<Int>(0)

    init(logger: Logger, busLabel: String) {
        self.logger = logger
        self.busLabel = busLabel
    }

    /// Called as a drain of `mailbox` is submitted to the main queue, for an event of
    /// `eventType`. Returns the drain's ticket, for ``started(_:)``.
    func submitted(_ mailbox: _Mailbox, eventType: (any Eventable.Type)?) -> UInt64 {
        let (ticket, arm) = state.withLock { $0.submit(mailbox, eventType: eventType) }
        if let arm { schedule(checking: arm) }
        return ticket
    }

    /// Called on the main queue as the drain with `ticket` starts.
    func started(_ ticket: UInt64) {
        if let arm = state.withLock({ $0.start(ticket) }) { schedule(checking: arm) }
    }

    /// How many warnings the watch has logged.
    var warningCount: Int { warnings.load(ordering: .relaxed) }

    /// Checks, a second from now, whether the drain with ticket `target` has started.
    private func schedule(checking target: UInt64) {
        _BackgroundWork.run(at: .now() + .nanoseconds(Int(Self.patienceNanoseconds))) {
            [weak self] in
            self?.check(target)
        }
    }

    private func check(_ target: UInt64) {
        let (report, arm) = state.withLock { $0.timerFired(checking: target) }
        // Logged outside the lock: a log handler is the user's code.
        if let report {
            warnings.add(1, ordering: .relaxed)
            let eventType = report.eventType.map { String(reflecting: $0) } ?? "an event"
            logger.warning(
                "main-actor deliveries of \(eventType) have waited more than a second: the main queue is not running (use dispatchMain(), an async main, or another executeOn)",
                metadata: ["bus": "\(busLabel)", "event": "\(eventType)", "pending": "\(report.mailbox?.load ?? 0)"])
        }
        if let arm { schedule(checking: arm) }
    }
}

/// The watch's bookkeeping: pure transitions, each saying which drain a new timer must check
/// (`nil`: no new timer), run under the watch's lock.
struct _MainQueueWatchState: Sendable {
    /// Tickets handed out, and the highest ticket the main queue has started.
    private(set) var submitted: UInt64 = 0
    private(set) var started: UInt64 = 0
    /// Whether a timer is pending; there is never more than one.
    private(set) var isArmed = false
    /// Whether the current stall has been reported; a drain that starts ends the stall.
    private(set) var hasReported = false
    /// The event type and mailbox of the latest drain submitted, for the warning.
    private var eventType: (any Eventable.Type)?
    private weak var mailbox: _Mailbox?

    /// What a warning says. The mailbox is read after the lock is let go: the last reference
    /// to it may go with the read, and its deinit frees events.
    struct Report {
        let eventType: (any Eventable.Type)?
        weak var mailbox: _Mailbox?
    }

    /// A drain is submitted: its ticket, and the drain a new timer must check when none is armed.
    mutating func submit(_ mailbox: _Mailbox?, eventType: (any Eventable.Type)?) -> (ticket: UInt64, arm: UInt64?) {
        submitted += 1
        if let eventType { self.eventType = eventType }
        self.mailbox = mailbox
        return (submitted, arm())
    }

    /// The drain with `ticket` starts on the main queue: a stall, if any, is over; a timer is
    /// armed for drains still waiting, when none is.
    mutating func start(_ ticket: UInt64) -> UInt64? {
        started = max(started, ticket)
        hasReported = false
        return arm()
    }

    /// The timer checking drain `target` fires: a report when that drain has not started and
    /// the stall is not reported yet, and the drain the next timer must check.
    mutating func timerFired(checking target: UInt64) -> (report: Report?, arm: UInt64?) {
        isArmed = false
        var report: Report?
        if started < target && !hasReported {
            hasReported = true
            report = Report(eventType: eventType, mailbox: mailbox)
        }
        return (report, arm())
    }

    /// Arms the timer for the oldest drain still waiting, unless one is armed, none waits, or
    /// the stall is already reported (the next start re-arms).
    private mutating func arm() -> UInt64? {
        guard !isArmed, !hasReported, started < submitted else { return nil }
        isArmed = true
        return started + 1
    }
}
