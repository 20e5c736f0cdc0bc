// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Logging
import Testing

/// Issue 29 (noticed in the example server): each dispatch refused after shutdown wrote its own
/// log line, 4,930 identical lines in one run.
@Suite("R5: dispatches refused after shutdown are all counted, and logged at the 1st, 10th, 100th…")
struct ShutdownLogTests {
    struct Order: Eventable { let id: Int }

    @Test("1,000 refused dispatches: 1,000 rejected, 4 log lines, the last with the count")
    func refusedDispatchesDoNotFloodTheLog() async {
        let log = CapturedLog()
        let bus = EventBus(label: "shutdown-log", logger: Logger(label: "test") { _ in log })
        bus.listen(Order.self, executeOn: .listenerThread) { _, _ in }
        await bus.shutdown()
        await coreOnPlainThread { for id in 0..<1_000 { Order(id: id).queue(on: bus) } }
        let lines = log.messages.filter { $0.text.contains("after it shut down") }
        #expect(bus.statistics.rejected == 1_000)
        #expect(lines.count == 4, "\(lines.map(\.text))")
        #expect(lines.last?.text.contains("1000 dispatches refused after shutdown so far") == true)
    }
}
