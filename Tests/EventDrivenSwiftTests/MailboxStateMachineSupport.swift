import Dispatch
import Testing

@testable import EventDrivenSwift

extension MailboxStateMachineTests {
    struct Note: Eventable { let value: Int }

    /// An ``_MailboxStateMachine/EnqueueAction`` with its entry named by the note it carries.
    enum Outcome: Equatable, Sendable {
        case none, wakeDrainer
        case discard(Int)
        case dropNewest(Int)
        case refuse(Int)
        case droppedOldest(Int)
        case blockProducer(Int)
    }

    func outcome(_ action: _MailboxStateMachine.EnqueueAction) -> Outcome {
        switch action {
        case .none: .none
        case .wakeDrainer: .wakeDrainer
        case .discard(let entry): .discard(Self.value(of: entry))
        case .dropNewest(let entry): .dropNewest(Self.value(of: entry))
        case .refuse(let entry): .refuse(Self.value(of: entry))
        case .droppedOldest(let entry): .droppedOldest(Self.value(of: entry))
        case .blockProducer(let entry): .blockProducer(Self.value(of: entry))
        }
    }

    /// Calls the waiters an action hands out; returns how many there were.
    func finished(_ action: _MailboxStateMachine.WaitersAction) -> Int {
        guard case .resume(let waiters) = action else { return 0 }
        for waiter in waiters { waiter() }
        return waiters.count
    }

    static func value(of entry: _MailboxEntry) -> Int { (entry.envelope.event as! Note).value }

    /// The notes of `lanes` in the order a drainer runs them.
    func values(_ lanes: borrowing _MailboxLanes<_MailboxEntry>) -> [Int] {
        var result: [Int] = []
        lanes.forEachInOrder { entry in
            result.append(Self.value(of: entry))
            return true
        }
        return result
    }

    /// Builds entries for a subscription and for a group of three; nothing is ever delivered.
    struct Fixture {
        let bus: EventBus
        let subscription: _Subscription
        let group: _SubscriptionGroup

        init() {
            let bus = EventBus(label: "state machine")
            self.bus = bus
            subscription = Self.subscription(bus)
            group = _SubscriptionGroup((0..<3).map { _ in Self.subscription(bus) })
        }

        /// What ``entry(_:_:_:at:)`` addresses its entries to.
        var recipient: _MailboxRecipient { _MailboxRecipient(.passUnretained(subscription)) }

        static func subscription(_ bus: EventBus) -> _Subscription {
            _Subscription(
                Note.self, owner: nil, target: _SynchronousTarget(counters: bus.counters), interest: .all,
                registrar: bus
            ) { _, _ in }
        }

        func entry(
            _ value: Int, _ method: EventDispatchMethod = .queue, _ priority: EventPriority = .normal,
            at nanoseconds: UInt64? = nil
        ) -> _MailboxEntry {
            Self.entry(for: subscription, value, method, priority, at: nanoseconds)
        }

        func groupEntry(
            _ value: Int, _ method: EventDispatchMethod = .queue, _ priority: EventPriority = .normal,
            at nanoseconds: UInt64? = nil
        ) -> _MailboxEntry {
            _MailboxEntry(
                envelope: Self.envelope(value, method, priority, at: nanoseconds),
                recipient: _MailboxRecipient(.passUnretained(group)), holdsInlineEvent: false)
        }

        /// An entry for `subscription`, which the caller keeps alive.
        static func entry(
            for subscription: _Subscription, _ value: Int, _ method: EventDispatchMethod = .queue,
            _ priority: EventPriority = .normal, at nanoseconds: UInt64? = nil
        ) -> _MailboxEntry {
            _MailboxEntry(
                envelope: envelope(value, method, priority, at: nanoseconds),
                recipient: _MailboxRecipient(.passUnretained(subscription)), holdsInlineEvent: false)
        }

        static func envelope(
            _ value: Int, _ method: EventDispatchMethod, _ priority: EventPriority, at nanoseconds: UInt64?
        ) -> _EventEnvelope {
            let time = nanoseconds.map { DispatchTime(uptimeNanoseconds: $0) } ?? .now()
            let metadata = EventMetadata(priority: priority, method: method, dispatchTime: time, scheduledTime: nil)
            return _EventEnvelope(event: Note(value: value), metadata: metadata)
        }
    }
}
