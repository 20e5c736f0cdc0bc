import Dispatch
import Logging
import Synchronization

/// Notices a main queue that is not being serviced (SPEC L3).
///
/// A main-actor mailbox drains on the main queue. A command-line program or a server that never
/// runs the main queue (no `dispatchMain()`, no async `main`, blocked on a semaphore) would
/// leave its main-actor listeners waiting forever without a word; once a drain has waited for
/// ``patienceNanoseconds``, the watch logs one warning naming the type of the event that
/// started the waiting drain. It warns once per bus, and stops checking after that.
final class _MainQueueWatch: Sendable {
    /// How long a drain may wait for the main queue before the watch warns: one second.
    static var patienceNanoseconds: UInt64 { 1_000_000_000 }

    private let logger: Logger
    private let busLabel: String
    /// Drains submitted to the main queue, and drains the main queue has started.
    private let submittedCount = Atomic<UInt64>(0)
    private let startedCount = Atomic<UInt64>(0)
    private let hasWarned = Atomic<Bool>(false)

    init(logger: Logger, busLabel: String) {
        self.logger = logger
        self.busLabel = busLabel
    }

    /// Called as a drain of `mailbox` is submitted to the main queue, for an event of `eventType`.
    func submitted(_ mailbox: _Mailbox, eventType: (any Eventable.Type)?) {
        let number = submittedCount.add(1, ordering: .relaxed).newValue
        guard !hasWarned.load(ordering: .relaxed) else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(Self.patienceNanoseconds))) {
            [weak mailbox] in
            guard let mailbox, self.startedCount.load(ordering: .acquiring) < number else { return }
            guard !self.hasWarned.exchange(true, ordering: .relaxed) else { return }
            let eventType = eventType.map { String(reflecting: $0) } ?? "an event"
            self.logger.warning(
                "main-actor deliveries of \(eventType) have waited more than a second: the main queue is not running (use dispatchMain(), an async main, or another executeOn)",
                metadata: ["bus": "\(self.busLabel)", "event": "\(eventType)", "pending": "\(mailbox.load)"])
        }
    }

    /// Called on the main queue as a submitted drain starts.
    func started() {
        startedCount.add(1, ordering: .releasing)
    }

    /// `true` once the watch has warned.
    var didWarn: Bool { hasWarned.load(ordering: .relaxed) }
}
