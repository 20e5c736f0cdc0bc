// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Logging
import Testing

@testable import EventDrivenSwift

/// Issue 25: the main queue's watch warns when main-actor deliveries wait over a second, keeps
/// one timer at a time, and warns again after a later stall.
@Suite("The main queue's watch")
struct MainQueueWatchTests {
    struct Ping: Eventable { let value: Int }

    @Test("a thousand drains submitted during one stall arm one timer; its report comes once")
    func oneTimerPerStall() {
        var state = _MainQueueWatchState()
        var armed: [UInt64] = []
        for _ in 0..<1_000 {
            if let target = state.submit(nil, eventType: Ping.self).arm { armed.append(target) }
        }
        #expect(armed == [1])
        let fired = state.timerFired(checking: 1)
        #expect(fired.report != nil)
        #expect(fired.arm == nil, "a reported stall arms no timer until the main queue runs again")
        #expect(state.submit(nil, eventType: Ping.self).arm == nil)
    }

    @Test("a drain that starts in time is not reported; the next waiting drain is checked")
    func drainInTime() {
        var state = _MainQueueWatchState()
        #expect(state.submit(nil, eventType: Ping.self).arm == 1)
        #expect(state.start(1) == nil, "the timer is still armed")
        #expect(state.submit(nil, eventType: Ping.self).arm == nil)
        let fired = state.timerFired(checking: 1)
        #expect(fired.report == nil)
        #expect(fired.arm == 2, "drain 2 still waits: checked by the next timer")
        #expect(state.timerFired(checking: 2).report != nil)
    }

    @Test("after a reported stall the main queue runs again; the next stall is reported too")
    func reArmedAfterStall() {
        var state = _MainQueueWatchState()
        _ = state.submit(nil, eventType: Ping.self)
        #expect(state.timerFired(checking: 1).report != nil)
        #expect(state.start(1) == nil, "nothing waits")
        #expect(state.submit(nil, eventType: Ping.self).arm == 2)
        #expect(state.timerFired(checking: 2).report != nil)
    }

    /// Waits, off the cooperative pool, for the log's next warning; `false` after `seconds`.
    static func waitForWarning(_ log: CapturedLog, seconds: Int) async -> Bool {
        await poolWait(log.warned, seconds: seconds)
    }

    @Test("a blocked main queue is reported at each stall, naming the event type")
    func eachStallIsReported() async {
        let log = CapturedLog()
        let bus = EventBus(label: "issue25-watch", logger: Logger(label: "test") { _ in log })
        let handle = bus.listen(Ping.self, executeOn: .mainActor) { _, _ in }
        for stall in 1...2 {
            let releaseMain = await holdMainQueue()
            Ping(value: stall).queue(on: bus)
            // The watch warns after a second; a missing warning fails below, after 30 s. (Other
            // suites hold the main queue on purpose too, so a stall may warn more than once
            // across its drains; each stall must warn at least once.)
            let warned = await Self.waitForWarning(log, seconds: 30)
            releaseMain.signal()
            await bus.drain()
            #expect(warned, "stall \(stall) was not reported")
            let warnings = log.messages.filter { $0.level == .warning }
            #expect(warnings.last?.text.contains(String(reflecting: Ping.self)) == true)
        }
        #expect(bus.statistics.delivered == 2)
        handle.cancel()
    }
}
