import Testing

@testable import EventDrivenSwift

/// The D3 ordering of the lanes and the holds of pending entries, without threads (the state
/// machine around them: MailboxStateMachineTests).
@Suite("Mailbox lanes (D3)")
struct MailboxLanesTests {
    @Test("D3: the README batch q1 s1 q2 s2 s3 q3 comes out as s3 s1 s2 q2 q1 q3")
    func readmeBatch() {
        var lanes = _MailboxLanes<String>()
        lanes.append("q1", method: .queue, priority: .normal)
        lanes.append("s1", method: .stack, priority: .normal)
        lanes.append("q2", method: .queue, priority: .high)
        lanes.append("s2", method: .stack, priority: .low)
        lanes.append("s3", method: .stack, priority: .normal)
        lanes.append("q3", method: .queue, priority: .lowest)
        #expect(lanes.count == 6)
        #expect(order(of: lanes) == ["s3", "s1", "s2", "q2", "q1", "q3"])
    }

    @Test("D3: every stack lane before every queue lane; LIFO within a stack lane, FIFO within a queue lane")
    func allLanes() {
        var lanes = _MailboxLanes<String>()
        for index in 0..<3 {
            for priority in EventPriority.allCases.reversed() {
                lanes.append("q\(priority.rawValue).\(index)", method: .queue, priority: priority)
                lanes.append("s\(priority.rawValue).\(index)", method: .stack, priority: priority)
            }
        }
        var expected: [String] = []
        for priority in EventPriority.allCases { expected += (0..<3).reversed().map { "s\(priority.rawValue).\($0)" } }
        for priority in EventPriority.allCases { expected += (0..<3).map { "q\(priority.rawValue).\($0)" } }
        #expect(order(of: lanes) == expected)
    }

    @Test("D3: a visit can stop early, and removeAll empties every lane for reuse")
    func earlyStopAndReuse() {
        var lanes = _MailboxLanes<Int>()
        for value in 0..<10 { lanes.append(value, method: .queue, priority: .normal) }
        var seen: [Int] = []
        let visited = lanes.forEachInOrder { value in
            seen.append(value)
            return value < 3
        }
        #expect(visited == 4 && seen == [0, 1, 2, 3])
        lanes.removeAll()
        #expect(lanes.isEmpty && lanes.count == 0)
        #expect(order(of: lanes).isEmpty)
        lanes.append(42, method: .stack, priority: .lowest)
        #expect(order(of: lanes) == [42])
    }

    @Test("D3 across chunk boundaries: a burst of thousands keeps its order, then the lanes are reused")
    func burstsAcrossChunks() {
        var lanes = _MailboxLanes<Int>()
        for round in 0..<3 {
            for value in 0..<2_000 {
                lanes.append(value, method: .queue, priority: .normal)
                lanes.append(-value - 1, method: .stack, priority: .normal)
            }
            let expected = (0..<2_000).reversed().map { -$0 - 1 } + Array(0..<2_000)
            #expect(order(of: lanes) == expected, "round \(round)")
            var drained: [Int] = []
            lanes.removeEachInOrder(while: { true }, { drained.append($0.move()) })
            #expect(drained == expected, "round \(round)")
            #expect(lanes.count == 0)
        }
    }

    @Test("after a burst, emptied lanes keep room for a thousand entries each and free the rest")
    func burstMemoryIsReleased() {
        var lanes = _MailboxLanes<Int>()
        for value in 0..<100_000 { lanes.append(value, method: .queue, priority: .normal) }
        for value in 0..<10 { lanes.append(value, method: .stack, priority: .high) }
        #expect(lanes.capacity >= 100_010)
        var drained = 0
        lanes.removeEachInOrder(
            while: { true },
            {
                _ = $0.move()
                drained += 1
            })
        #expect(drained == 100_010)
        let kept = lanes.capacity
        #expect(kept <= 2 * _Lane<Int>.retainedChunks * 128, "only the retained chunks of the two used lanes")
        for value in 0..<1_000 { lanes.append(value, method: .queue, priority: .normal) }
        #expect(lanes.capacity == kept, "a burst of a thousand reuses what was kept")
        for value in 0..<100_000 { lanes.append(value, method: .queue, priority: .normal) }
        lanes.removeAll()
        #expect(lanes.capacity == kept, "removeAll frees a large burst's chunks too")
    }

    @Test("a lane that loses its oldest entries while it keeps receiving stays in order (bounded mailboxes)")
    func slidingWindow() {
        var lanes = _MailboxLanes<Int>()
        var model: [Int] = []
        var next = 0
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            if model.count < 300 || Bool.random(using: &generator) {
                lanes.append(next, method: .queue, priority: .high)
                model.append(next)
                next += 1
            } else {
                let removed = lanes.removeOldest { $0 < $1 }
                #expect(removed == model.removeFirst())
            }
        }
        #expect(order(of: lanes) == model)
    }

    @Test("the holds of pending entries keep every subscription alive, however many share the mailbox, until released")
    func holdsKeepSubscriptionsAlive() {
        let bus = EventBus(label: "holds")
        var holds = _SubscriptionHolds()
        var weakSubscriptions: [WeakSubscription] = []
        do {
            // Forty subscriptions of one mailbox, their entries interleaved, each entry held:
            // for one batch, then again for the next after the first was released.
            let subscriptions = (0..<40).map { _ in
                _Subscription(
                    Note.self, owner: nil, target: _SynchronousTarget(counters: bus.counters), interest: .all,
                    registrar: bus, handler: { _, _ in })
            }
            weakSubscriptions = subscriptions.map { WeakSubscription(subscription: $0) }
            for batch in 0..<2 {
                if batch == 1 { holds.removeAll() }
                for pass in 0..<3 {
                    for subscription in pass == 1 ? subscriptions.reversed() : subscriptions {
                        holds.hold(recipientOf: Fixture.entry(for: subscription))
                    }
                }
            }
        }
        #expect(weakSubscriptions.allSatisfy { $0.subscription != nil }, "the second batch's holds keep them")
        holds.removeAll()
        #expect(weakSubscriptions.allSatisfy { $0.subscription == nil }, "released with the holds")
    }

    private func order<Entry>(of lanes: borrowing _MailboxLanes<Entry>) -> [Entry] {
        var result: [Entry] = []
        lanes.forEachInOrder { entry in
            result.append(entry)
            return true
        }
        return result
    }
}

extension MailboxLanesTests {
    struct Note: Eventable {}

    /// Builds mailbox entries; nothing is ever delivered.
    enum Fixture {
        /// An entry for `subscription`, which the caller keeps alive.
        static func entry(
            for subscription: _Subscription, _ method: EventDispatchMethod = .queue, _ priority: EventPriority = .normal
        ) -> _MailboxEntry {
            let metadata = EventMetadata(priority: priority, method: method, dispatchTime: .now(), scheduledTime: nil)
            return _MailboxEntry(
                envelope: _EventEnvelope(event: Note(), metadata: metadata, sequence: 0),
                recipient: _MailboxRecipient(.passUnretained(subscription)), holdsInlineEvent: false)
        }
    }

    struct WeakSubscription {
        weak var subscription: _Subscription?
    }
}
