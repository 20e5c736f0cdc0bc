// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// The object the benchmark's typed notifications are posted about.
final class TickSource: Sendable {}

/// `Tick` as one of Foundation's typed, concurrency-safe notifications (SPEC PF2).
struct TickMessage: NotificationCenter.AsyncMessage {
    typealias Subject = TickSource
    let tick: Tick
}

/// One of the 100 message types registered beside `TickMessage` in S4; nobody posts them.
struct OtherMessage<A: Digit, B: Digit>: NotificationCenter.AsyncMessage {
    typealias Subject = TickSource
    static var name: Notification.Name { Notification.Name("bench.other.\(A.self).\(B.self)") }
}

/// Foundation's `NotificationCenter.AsyncMessage`: `post` returns at once, and each observer's
/// `async` closure runs later, off the posting thread (Foundation decides where).
struct AsyncMessageContender: Contender {
    var name: String { "NotificationCenter.AsyncMessage" }
    var kind: ContenderKind { .peer }
    var isSynchronous: Bool { false }
    var routesByType: Bool { true }
    /// About 30 thousand events per second in S1 here, 10 thousand deliveries in S2.
    var eventDivisor: Int { 20 }
    /// Measured on this VM: `EDSBench --runs 1 --only S4` did not finish in 120 s with it, `--only
    /// S5` and `--only ALLOC` (S1 in a child process) not in 60 s, while S1 in the benchmark's own
    /// process takes 7 s for 200,000 events. Why was not looked into.
    /// Measured only when named (`--contenders NotificationCenter.AsyncMessage,...`): in a run
    /// of `RUNS=5 Benchmarks/run.sh` (2026-11-26 10:55 UTC) the benchmark waited for its
    /// deliveries for 10 minutes, using no CPU, until it was stopped; gdb showed the main thread
    /// in `DeliveryTally.waitForAll` and no thread running the observers. Why was not looked into.
    var isOptIn: Bool { true }
    var skippedScenarios: (names: Set<String>, reason: String)? {
        (["S4", "S5", "ALLOC"], "did not finish in 60–120 s per run on this VM (not investigated)")
    }

    func makePipeline(receivers: Int, otherTypes: Int, handler: @escaping @Sendable (Int, Tick) -> Void) -> Pipeline {
        let center = NotificationCenter()
        let source = TickSource()
        var tokens: [NotificationCenter.ObservationToken] = []
        for observe in otherMessageObservers(otherTypes) { tokens.append(observe(center, source)) }
        for index in 0..<receivers {
            tokens.append(
                center.addObserver(of: source, for: NotificationCenter.BaseMessageIdentifier<TickMessage>()) {
                    handler(index, $0.tick)
                })
        }
        return Pipeline(
            send: { center.post(TickMessage(tick: $0), subject: source) },
            tearDown: { for token in tokens { center.removeObserver(token) } })
    }
}

/// Registers an observer that ignores one message type; `count` of them, of distinct types.
private func otherMessageObservers(
    _ count: Int
) -> [(NotificationCenter, TickSource) -> NotificationCenter.ObservationToken] {
    let digits: [any Digit.Type] = [
        D0.self, D1.self, D2.self, D3.self, D4.self, D5.self, D6.self, D7.self, D8.self, D9.self,
    ]
    var observers: [(NotificationCenter, TickSource) -> NotificationCenter.ObservationToken] = []
    for a in digits {
        for b in digits where observers.count < count { observers.append(ignoringObserver(a, b)) }
    }
    return observers
}

private func ignoringObserver<A: Digit, B: Digit>(
    _: A.Type, _: B.Type
) -> (NotificationCenter, TickSource) -> NotificationCenter.ObservationToken {
    { center, source in
        center.addObserver(of: source, for: NotificationCenter.BaseMessageIdentifier<OtherMessage<A, B>>()) { _ in }
    }
}
