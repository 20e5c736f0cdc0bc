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
    static func successors(of world: World, perProducer: Int, withCloser: Bool) -> [World] {
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
                            #expect(successor.delivered[producer] == event, "D4: producer \(producer) in order")
                            successor.delivered[producer] = event + 1
                        }
                    case .park, .finish:
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
    static func explore(producers: Int, perProducer: Int, withCloser: Bool = false) -> Int {
        let start = World(
            links: Array(repeating: 0, count: producers * perProducer + 1),
            producers: Array(repeating: Producer(), count: producers),
            delivered: Array(repeating: 0, count: producers))
        var visited: Set<World> = [start]
        var stack = [start]
        while let world = stack.popLast() {
            #expect(world.submitted + (world.drain.isRunning ? 1 : 0) <= 1, "one drain at a time")
            let next = successors(of: world, perProducer: perProducer, withCloser: withCloser)
            if next.isEmpty {
                let total = producers * perProducer
                let ran = world.delivered.reduce(0, +)
                #expect(ran + world.discarded == total, "every event ran or was discarded: \(world)")
                #expect(_MailboxState(word: world.word).top == 0, "nothing is left pending: \(world)")
                if !withCloser { #expect(ran == total, "no wake-up was lost") }
            }
            for successor in next where visited.insert(successor).inserted {
                stack.append(successor)
            }
        }
        return visited.count
    }

    @Test("two producers of two events each and one drainer: no lost wake-up, one drain, FIFO per producer")
    func twoProducersTwoEvents() {
        let states = Self.explore(producers: 2, perProducer: 2)
        #expect(states > 1_000, "the search covered \(states) states")
    }

    @Test("two producers and a drainer while the mailbox is closed at any moment: every event runs or is discarded")
    func closeAtAnyMoment() {
        let states = Self.explore(producers: 2, perProducer: 2, withCloser: true)
        #expect(states > 1_000, "the search covered \(states) states")
    }
}
