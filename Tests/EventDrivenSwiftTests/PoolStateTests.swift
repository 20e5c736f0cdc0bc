// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing

@testable import EventDrivenSwift

private struct Member: _EventPoolStateMember, Equatable {
    let id: Int
}

private typealias State = _EventPoolState<Member, String>

@Suite("EventPool state machine")
struct PoolStateTests {
    @Test("P4: a retired thread stops only once every older snapshot is released")
    func retireWaitsForOlderSnapshots() {
        var state = State(ordersHandovers: false)
        let first = state.add([Member(id: 0), Member(id: 1), Member(id: 2)])
        #expect(first == 0)
        let rebuilt = state.rebuild()
        let retiredFrom = state.retire([1])
        #expect(retiredFrom == 2)
        #expect(state.members.map(\.id) == [0, 2])
        #expect(state.retiringCount == 1)
        // Generation 1 is still in use by a dispatch: the retiree must wait.
        let tooEarly = state.released(2)
        #expect(tooEarly.isEmpty)
        let stillEarly = state.released(first)
        #expect(stillEarly.isEmpty)
        let ready = state.released(rebuilt)
        #expect(ready.map { $0.retirees.map(\.id) } == [[1]])
        #expect(ready.first?.isHandover == false)
        let waiters = state.retireeFinished(1)
        #expect(waiters.isEmpty)
        #expect(state.retiringCount == 0)
    }

    @Test("P4: an ordered pool holds events during a hand-over and releases them in order")
    func handoverHoldsInOrder() {
        var state = State(ordersHandovers: true)
        let initial = state.add([Member(id: 0)])
        #expect(state.released(initial).isEmpty)
        #expect(!state.isHolding)
        let old = state.add([Member(id: 1)])
        #expect(state.isHolding)
        state.hold("a")
        state.hold("b")
        let ready = state.released(old)
        #expect(ready.count == 1)
        #expect(ready.first?.isHandover == true)
        #expect(ready.first?.previous.map(\.id) == [0])
        let waiting = state.waitForHandover {}
        #expect(waiting)
        let finished = state.handoverFinished()
        #expect(finished)
        guard case .route(let first) = state.nextFlush() else {
            Issue.record("expected held events")
            return
        }
        #expect(first == ["a", "b"])
        // An event arriving during the release queues behind the released ones.
        #expect(state.isHolding)
        state.hold("c")
        guard case .route(let second) = state.nextFlush() else {
            Issue.record("expected the late event")
            return
        }
        #expect(second == ["c"])
        guard case .done(let waiters) = state.nextFlush() else {
            Issue.record("expected the end of the hand-over")
            return
        }
        #expect(waiters.count == 1)
        #expect(!state.isHolding)
    }

    @Test("P4: a new hand-over pauses the release until it finishes too")
    func overlappingHandovers() {
        var state = State(ordersHandovers: true)
        let initial = state.add([Member(id: 0)])
        _ = state.released(initial)
        let first = state.add([Member(id: 1)])
        state.hold("a")
        _ = state.released(first)
        let finished = state.handoverFinished()
        #expect(finished)
        let second = state.retire([0])
        #expect(second != nil)
        let paused = state.nextFlush()
        #expect(paused.isPaused)
        #expect(state.isHolding)
        let ready = state.released(second!)
        #expect(ready.first?.previous.map(\.id) == [0, 1])
        #expect(ready.first?.retirees.map(\.id) == [0])
        let finishedAgain = state.handoverFinished()
        #expect(finishedAgain)
        guard case .route(let events) = state.nextFlush() else {
            Issue.record("expected held events")
            return
        }
        #expect(events == ["a"])
    }

    @Test("P1: stopping returns the members and held events once")
    func stopOnce() {
        var state = State(ordersHandovers: true)
        _ = state.add([Member(id: 0)])
        _ = state.add([Member(id: 1)])
        state.hold("x")
        let stopped = state.stop {}
        #expect(stopped?.members.map(\.id) == [0, 1])
        #expect(stopped?.held == ["x"])
        #expect(state.isStopped)
        #expect(state.members.isEmpty)
        let again = state.stop {}
        #expect(again == nil)
    }
}

extension _EventPoolState.FlushStep {
    fileprivate var isPaused: Bool {
        if case .paused = self { return true }
        return false
    }
}
