// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Foundation
import Testing

private struct Ping: Eventable {}
private struct Pong: Eventable {}
private struct Nobody: Eventable {}

/// A thread that answers every ping with a pong.
private final class Responder: EventThread, @unchecked Sendable {  // no stored state of its own
    override func registerEventListeners() {
        addEventCallback(onPing, forEventType: Ping.self)
    }

    private func onPing(_ event: Ping, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
        Pong().queue(on: bus)
    }
}

/// A receiver registered for a type nobody dispatches.
private final class Idle: Sendable {}

@Suite("The flow recorder and the topology (SPEC M3)")
struct FlowRecorderTests {
    @Test("M3: the Chrome trace has a named track per receiver, a slice per handler run and a flow per delivery")
    func chromeTraceShape() async throws {
        let bus = EventBus(label: "m3")
        let recorder = EventFlowRecorder()
        bus.addInterceptor(recorder)
        bus.listen(Ping.self, executeOn: .listenerThread) { _, _ in }
        bus.listen(Ping.self, executeOn: .taskThread) { _, _ in }
        for _ in 0..<3 { bus.queue(Ping()) }
        await bus.drain()
        let json = try #require(JSONSerialization.jsonObject(with: recorder.chromeTrace()) as? [String: Any])
        let events = try #require(json["traceEvents"] as? [[String: Any]])
        let names = events.filter { $0["ph"] as? String == "M" }.compactMap {
            ($0["args"] as? [String: Any])?["name"] as? String
        }
        #expect(names.contains("listener thread"))
        #expect(names.contains("task"))
        let slices = events.filter { $0["ph"] as? String == "X" && $0["cat"] as? String == "delivery" }
        #expect(slices.count == 6)
        for slice in slices {
            let args = try #require(slice["args"] as? [String: Any])
            #expect(args["outcome"] as? String == "delivered")
            #expect(args["priority"] != nil && args["method"] != nil && args["receiver"] != nil)
        }
        let starts = events.filter { $0["ph"] as? String == "s" }
        let finishes = events.filter { $0["ph"] as? String == "f" }
        #expect(starts.count == 6)
        #expect(Set(starts.compactMap { $0["id"] as? Int }) == Set(finishes.compactMap { $0["id"] as? Int }))
        for finish in finishes {
            #expect(finish["bp"] as? String == "e")
            // The flow ends inside a handler slice on the same track.
            let ts = try #require(finish["ts"] as? Double)
            let tid = try #require(finish["tid"] as? Int)
            #expect(
                slices.contains { slice in
                    guard slice["tid"] as? Int == tid, let start = slice["ts"] as? Double,
                        let duration = slice["dur"] as? Double
                    else { return false }
                    return start <= ts && ts <= start + duration
                })
        }
    }

    @Test("M3: the ring keeps the last N records only")
    func ringIsBounded() async {
        let bus = EventBus(label: "m3-ring")
        let recorder = EventFlowRecorder(capacity: 10)
        bus.addInterceptor(recorder)
        bus.listen(Ping.self, executeOn: .synchronous) { _, _ in }
        for _ in 0..<100 { bus.queue(Ping()) }
        #expect(recorder.records.count == 10)
        guard case .delivery = recorder.records.last else {
            Issue.record("the last record is the last delivery")
            return
        }
    }

    @Test("M3: the topology of a known wiring, as Mermaid and DOT")
    func topologyOfKnownWiring() async throws {
        let bus = EventBus(label: "m3-topology")
        let recorder = EventFlowRecorder()
        bus.addInterceptor(recorder)
        let responder = Responder(bus: bus)
        let idle = Idle()
        bus.listen(Nobody.self, owner: idle, executeOn: .listenerThread) { _, _ in }
        let pongs = DispatchSemaphore(value: 0)
        bus.listen(Pong.self, executeOn: .synchronous) { _, _ in pongs.signal() }
        let line = #line + 1
        Ping().queue(on: bus)
        Ping().queue(on: bus)
        await coreWait(pongs)
        await coreWait(pongs)
        struct Unheard: Eventable {}
        bus.queue(Unheard())
        let unheardLine = #line - 1
        let topology = bus.topology()
        let file = #fileID
        let ping = String(reflecting: Ping.self)
        let pong = String(reflecting: Pong.self)
        let nobody = String(reflecting: Nobody.self)
        let unheard = String(reflecting: Unheard.self)
        #expect(
            topology.publishes == [
                .init(from: "\(file):\(line)", to: ping): 1, .init(from: "\(file):\(line + 1)", to: ping): 1,
                .init(from: "Responder", to: pong): 2, .init(from: "\(file):\(unheardLine)", to: unheard): 1,
            ])
        #expect(
            topology.deliveries == [
                .init(from: ping, to: "Responder"): 2, .init(from: pong, to: "synchronous (dispatching thread)"): 2,
                .init(from: nobody, to: "Idle"): 0,
            ])
        #expect(topology.unreceivedEventTypes == [unheard: 1])
        #expect(topology.idleReceivers == ["Idle"])
        let mermaid = topology.mermaid
        #expect(mermaid.hasPrefix("flowchart LR\n"))
        #expect(mermaid.contains("-->|2|"))
        #expect(mermaid.contains("class e3 unreceived") || mermaid.contains("unreceived"))
        #expect(mermaid.contains("idle"))
        #expect(topology.dot.hasPrefix("digraph EventTopology {"))
        #expect(topology.dot.contains("[label=\"2\"]"))
        withExtendedLifetime((idle, responder)) {}
        await bus.shutdown()
    }
}
