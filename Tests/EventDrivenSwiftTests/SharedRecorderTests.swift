// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import Testing

private struct OnA: Eventable {}
private struct OnB: Eventable {}

@Suite("One flow recorder on two buses (issue 26, item 6; SPEC M3)")
struct SharedRecorderTests {
    @Test("each flow arrow starts at its own bus's dispatch, though both buses number dispatches from 1")
    func flowsStayOnTheirBus() throws {
        let busA = EventBus(label: "shared.a")
        let busB = EventBus(label: "shared.b")
        let recorder = EventFlowRecorder()
        busA.addInterceptor(recorder)
        busB.addInterceptor(recorder)
        busA.listen(OnA.self, executeOn: .synchronous) { _, _ in }
        busB.listen(OnB.self, executeOn: .synchronous) { _, _ in }
        // Dispatch 1 of bus A is handled before dispatch 1 of bus B is made.
        busA.queue(OnA())
        busB.queue(OnB())
        let json = try #require(JSONSerialization.jsonObject(with: recorder.chromeTrace()) as? [String: Any])
        let events = try #require(json["traceEvents"] as? [[String: Any]])
        let dispatchTimes = events.filter { $0["cat"] as? String == "dispatch" }.compactMap { $0["ts"] as? Double }
        let starts = events.filter { $0["ph"] as? String == "s" }
        let ends = events.filter { $0["ph"] as? String == "f" }
        #expect(starts.count == 2)
        #expect(dispatchTimes.count == 2)
        for start in starts {
            let end = try #require(ends.first { $0["id"] as? Int == start["id"] as? Int })
            let from = try #require(start["ts"] as? Double)
            let to = try #require(end["ts"] as? Double)
            // A flow arrow never starts after the handler it points to.
            #expect(from <= to, "flow \(start["id"] ?? "?") starts at \(from) µs, its handler at \(to) µs")
        }
        #expect(Set(starts.compactMap { $0["ts"] as? Double }) == Set(dispatchTimes))
    }

    @Test("a bus's topology shows only what was seen on that bus")
    func topologyStaysOnItsBus() {
        let busA = EventBus(label: "shared.topology.a")
        let busB = EventBus(label: "shared.topology.b")
        let recorder = EventFlowRecorder()
        busA.addInterceptor(recorder)
        busB.addInterceptor(recorder)
        busA.listen(OnA.self, executeOn: .synchronous) { _, _ in }
        busB.listen(OnB.self, executeOn: .synchronous) { _, _ in }
        busA.queue(OnA())
        busB.queue(OnB())
        let nameA = String(reflecting: OnA.self)
        let nameB = String(reflecting: OnB.self)
        #expect(busA.topology().eventTypes == [nameA])
        #expect(busB.topology().eventTypes == [nameB])
        #expect(recorder.topology().eventTypes == [nameA, nameB].sorted())
    }
}
