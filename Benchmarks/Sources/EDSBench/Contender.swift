// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

/// The event every scenario sends: a small struct, whose value is a sequence number or a send time.
struct Tick: Eventable, Equatable {
    let value: UInt64
}

/// Which side of the comparison a contender is on.
enum ContenderKind: Sendable {
    case ours
    case floor
    /// The floor with what SPEC E3 requires of every dispatch added: a reference, not a peer.
    case stampedFloor
    case peer
}

/// A running delivery path from one producer to some receivers.
struct Pipeline {
    /// Sends one event; called from the producer thread only.
    let send: (Tick) -> Void
    /// Stops every receiver and frees what the pipeline made.
    let tearDown: () -> Void
}

/// One way of delivering events: one of our delivery modes, the floor, or a peer library.
protocol Contender: Sendable {
    /// The short name used in tables and on the command line.
    var name: String { get }
    var kind: ContenderKind { get }
    /// `true` when `send` runs the handlers before it returns.
    var isSynchronous: Bool { get }
    /// `true` when the contender routes by event type, so S4 means something for it.
    var routesByType: Bool { get }
    /// Builds a pipeline to `receivers` handlers; `handler` gets the receiver's index.
    /// `otherTypes` more event types are registered beside `Tick` (S4).
    func makePipeline(receivers: Int, otherTypes: Int, handler: @escaping @Sendable (Int, Tick) -> Void) -> Pipeline
    /// The throughput scenarios (S1, S2, S4, and S1 in S5 and the allocation count) send this
    /// contender the scenario's events divided by this: a contender that handles tens of
    /// thousands of events per second would otherwise take minutes per run.
    var eventDivisor: Int { get }
    /// Scenarios this contender sits out (`S4`, `S5`, `ALLOC`), with the reason printed in the
    /// report's header.
    var skippedScenarios: (names: Set<String>, reason: String)? { get }
    /// `true` for a contender measured only when `--contenders` names it.
    var isOptIn: Bool { get }
    /// `true` for a contender whose receivers run on the main queue: measured only in a child
    /// process, whose main thread runs the main queue while another thread measures.
    var needsMainQueue: Bool { get }
}

extension Contender {
    var eventDivisor: Int { 1 }
    var skippedScenarios: (names: Set<String>, reason: String)? { nil }
    var isOptIn: Bool { false }
    var needsMainQueue: Bool { false }

    /// `events` divided by ``eventDivisor``.
    func events(_ events: Int) -> Int { events / eventDivisor }
}

/// Every contender, ours first, then the floor and the peers.
let allContenders: [any Contender] = [
    EDSContender(mode: .eventThread),
    EDSContender(mode: .listenerThread),
    EDSContender(mode: .requesterThread),
    EDSContender(mode: .synchronous),
    EDSContender(mode: .channel),
    FloorContender(),
    StampedFloorContender(),
    NotificationCenterContender(),
    AsyncMessageContender(),
    CombineContender(receiveOnQueue: false),
    CombineContender(receiveOnQueue: true),
    AsyncStreamContender(),
    EDSContender(mode: .mainActor),
    EDSContender(mode: .state),
]

/// The peers that every one of our figures is compared with.
let peerNames = allContenders.filter { $0.kind == .peer }.map(\.name)

func contender(named name: String) -> (any Contender)? {
    allContenders.first { $0.name == name }
}
