// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing

@testable import EventDrivenSwift

/// The mailbox's park/wake protocol, checked over every interleaving of two producers and the
/// drainer (issue 24): the real transitions of ``_MailboxState`` are run by a small model of the
/// threads, in which each load and each compare-and-exchange is one step, and a depth-first
/// search visits every reachable state.
///
/// The drainer is modelled as the dispatch-queue executors run it: a push that finds the mailbox
/// idle submits a drain; a drain takes batches until a take parks it. Each look may or may not
/// let it idle (the pacing's choice), so both are explored. In every state:
/// - at most one drain is submitted or running (the one-drainer rule);
/// - each producer's events reach the drainer in the order pushed (D4);
/// and in every state where no thread can move, every event pushed has been delivered (no lost
/// wake-up, no lost event) and nothing is pending.
///
/// The checks can fail: two mutants of the protocol, applied to the word after the real
/// transition, are each caught (a push that leaves the parked bit set starts a second drain; a
/// take that parks without setting it loses a wake-up).
@Suite("Issue 24: the mailbox's park/wake protocol, every interleaving")
struct MailboxProtocolModelTests {
    /// One producer: how many of its events it has pushed, and where it is in the current push.
    struct Producer: Hashable {
        var pushed = 0
        /// `nil` before the load; the word it loaded before its compare-and-exchange.
        var seen: UInt64?
    }

    /// The drain: whether one runs, and where it is in its current take.
    struct Drain: Hashable {
        var isRunning = false
        var seen: UInt64?
        var mayIdle = false
    }

    /// A deliberate fault in the protocol, to show that the search catches it.
    enum Mutation {
        case none
        /// A push into an idle mailbox wakes the drainer but leaves the parked bit set.
        case pushKeepsParkedBit
        /// A take that parks does not set the parked bit.
        case parkWithoutParkedBit
    }

    /// What the search found wrong, by kind.
    struct Violations {
        var twoDrains = false
        var outOfOrder = false
        var lostWakeUp = false
        var leftPending = false
        var isEmpty: Bool { !twoDrains && !outOfOrder && !lostWakeUp && !leftPending }
    }

    struct World: Hashable {
        var word = _MailboxState().word
        /// The node below each node (index = node).
        var links: [UInt32]
        var producers: [Producer]
        var drain = Drain()
        /// Drains submitted and not started yet.
        var submitted = 0
        /// Per producer, how many of its events the drainer ran, in order.
        var delivered: [Int]
        var closed = false
        var discarded = 0
    }

    /// The node of producer `producer`'s event `event`.
    static func node(_ producer: Int, _ event: Int, perProducer: Int) -> UInt32 {
        UInt32(1 + producer * perProducer + event)
    }

    /// Every world one step of one thread leads to.
    static func successors(
        of world: World, perProducer: Int, withCloser: Bool, mutation: Mutation, violations: inout Violations
    ) -> [World] {
        var next: [World] = []
        for index in world.producers.indices where world.producers[index].pushed < perProducer {
            var successor = world
            let producer = world.producers[index]
            guard let seen = producer.seen else {
                successor.producers[index].seen = world.word
                next.append(successor)
                continue
            }
            var state = _MailboxState(word: seen)
            let node = Self.node(index, producer.pushed, perProducer: perProducer)
            let action = state.push(node, deliveries: 1, capacity: .max)
            successor.producers[index].seen = nil
            if world.word == seen {
                switch action {
                case .pushed(let below, let wake):
                    successor.links[Int(node)] = below
                    successor.word = state.word
                    if wake && mutation == .pushKeepsParkedBit { successor.word |= 1 << 60 }
                    if wake { successor.submitted += 1 }
                case .refused:
                    successor.discarded += 1
                case .full:
                    Issue.record("an unbounded mailbox was full")
                }
                successor.producers[index].pushed += 1
            }
            next.append(successor)
        }
        if !world.drain.isRunning && world.submitted > 0 {
            var successor = world
            successor.submitted -= 1
            successor.drain = Drain(isRunning: true)
            next.append(successor)
        }
        if world.drain.isRunning {
            if let seen = world.drain.seen {
                var successor = world
                successor.drain.seen = nil
                if world.word == seen {
                    var state = _MailboxState(word: seen)
                    let action = state.take(mayIdle: world.drain.mayIdle)
                    successor.word = state.word
                    switch action {
                    case .run(let top, let count):
                        var nodes: [UInt32] = []
                        var node = top
                        while node != 0 {
                            nodes.append(node)
                            node = world.links[Int(node)]
                        }
                        #expect(nodes.count == count, "the count matches the stack")
                        for node in nodes.reversed() {
                            let producer = Int(node - 1) / perProducer
                            let event = Int(node - 1) % perProducer
                            if successor.delivered[producer] != event { violations.outOfOrder = true }
                            successor.delivered[producer] = event + 1
                        }
                    case .park:
                        if mutation == .parkWithoutParkedBit { successor.word &= ~(1 << 60) }
                        successor.drain = Drain()
                    case .finish:
                        successor.drain = Drain()
                    case .lookAgain:
                        break
                    }
                }
                next.append(successor)
            } else {
                for mayIdle in [false, true] {
                    var successor = world
                    successor.drain.seen = world.word
                    successor.drain.mayIdle = mayIdle
                    next.append(successor)
                }
            }
        }
        if withCloser && !world.closed {
            // Closing is one compare-and-exchange on the word; its discarded stack leaves here.
            var successor = world
            var state = _MailboxState(word: world.word)
            let action = state.close()
            successor.word = state.word
            successor.closed = true
            successor.discarded += action.count
            if action.wakeDrainer { successor.submitted += 1 }
            next.append(successor)
        }
        return next
    }

    /// Visits every reachable world; returns how many there were.
    static func explore(
        producers: Int, perProducer: Int, withCloser: Bool = false, mutation: Mutation = .none
    ) -> (states: Int, violations: Violations) {
        var violations = Violations()
        let start = World(
            links: Array(repeating: 0, count: producers * perProducer + 1),
            producers: Array(repeating: Producer(), count: producers),
            delivered: Array(repeating: 0, count: producers))
        var visited: Set<World> = [start]
        var stack = [start]
        while let world = stack.popLast() {
            if world.submitted + (world.drain.isRunning ? 1 : 0) > 1 { violations.twoDrains = true }
            let next = successors(
                of: world, perProducer: perProducer, withCloser: withCloser, mutation: mutation,
                violations: &violations)
            if next.isEmpty {
                let total = producers * perProducer
                let ran = world.delivered.reduce(0, +)
                if ran + world.discarded != total || (!withCloser && ran != total) { violations.lostWakeUp = true }
                if _MailboxState(word: world.word).top != 0 { violations.leftPending = true }
            }
            for successor in next where visited.insert(successor).inserted {
                stack.append(successor)
            }
        }
        return (visited.count, violations)
    }

    /// ``explore(producers:perProducer:withCloser:mutation:)`` on a thread of its own: the search
    /// takes seconds under ThreadSanitizer, and one of Swift's two pool threads held that long
    /// keeps every other test's tasks waiting.
    static func exploreOffThePool(
        producers: Int, perProducer: Int, withCloser: Bool = false, mutation: Mutation = .none
    ) async -> (states: Int, violations: Violations) {
        await coreOnPlainThread {
            explore(producers: producers, perProducer: perProducer, withCloser: withCloser, mutation: mutation)
        }
    }

    @Test("two producers of two events each and one drainer: no lost wake-up, one drain, FIFO per producer")
    func twoProducersTwoEvents() async {
        let (states, violations) = await Self.exploreOffThePool(producers: 2, perProducer: 2)
        #expect(violations.isEmpty, "\(violations)")
        #expect(states > 1_000, "the search covered \(states) states")
    }

    @Test("two producers and a drainer while the mailbox is closed at any moment: every event runs or is discarded")
    func closeAtAnyMoment() async {
        let (states, violations) = await Self.exploreOffThePool(producers: 2, perProducer: 2, withCloser: true)
        #expect(violations.isEmpty, "\(violations)")
        #expect(states > 1_000, "the search covered \(states) states")
    }

    @Test("the search catches a push that wakes the drainer but leaves the parked bit set: two drains")
    func catchesTwoDrains() async {
        let (_, violations) = await Self.exploreOffThePool(producers: 2, perProducer: 2, mutation: .pushKeepsParkedBit)
        #expect(violations.twoDrains)
    }

    @Test("the search catches a take that parks without setting the parked bit: a lost wake-up")
    func catchesLostWakeUp() async {
        let (_, violations) = await Self.exploreOffThePool(
            producers: 2, perProducer: 2, mutation: .parkWithoutParkedBit)
        #expect(violations.lostWakeUp)
    }
}
