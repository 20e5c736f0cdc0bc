// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// Chrome Trace Event JSON for a list of flow records, as Perfetto and chrome://tracing read it.
///
/// One process; one track (a `tid`, named by a `thread_name` metadata event) per receiving
/// thread or context and per dispatching one; a complete slice (`X`) per handler run and per
/// dispatch; an instant (`i`) for a delivery that did not run; a flow arrow (`s` at the
/// dispatch, `f` with `bp: e` inside the handler's slice) from each dispatch to each delivery.
struct _ChromeTrace {
    let records: [EventFlowRecord]

    private struct DispatchKey: Hashable {
        let busID: UInt64
        let dispatchID: UInt64
    }

    private struct Builder {
        var events: [[String: Any]] = []
        var tracks: [String: Int] = [:]
        var nextFlow = 1
        let origin: UInt64

        mutating func tid(_ track: String) -> Int {
            if let tid = tracks[track] { return tid }
            let tid = tracks.count + 1
            tracks[track] = tid
            events.append(["ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": ["name": track]])
            return tid
        }

        func microseconds(_ nanoseconds: UInt64) -> Double {
            Double(nanoseconds &- origin) / 1_000
        }
    }

    func json() -> Data {
        // Dispatch numbers are per bus: a recorder added to several buses keys them by both.
        var dispatches: [DispatchKey: EventFlowRecord.Dispatch] = [:]
        var origin = UInt64.max
        for record in records {
            switch record {
            case .dispatch(let dispatch):
                dispatches[DispatchKey(busID: dispatch.busID, dispatchID: dispatch.dispatchID)] = dispatch
                origin = min(origin, dispatch.timeNanoseconds)
            case .unreceived(let dispatch): origin = min(origin, dispatch.timeNanoseconds)
            case .delivery(let delivery): origin = min(origin, delivery.startNanoseconds ?? delivery.endNanoseconds)
            }
        }
        var builder = Builder(origin: origin == .max ? 0 : origin)
        for record in records {
            switch record {
            case .dispatch(let dispatch):
                builder.events.append([
                    "ph": "X", "cat": "dispatch", "name": "dispatch \(dispatch.eventType)",
                    "ts": builder.microseconds(dispatch.timeNanoseconds), "dur": 1, "pid": 1,
                    "tid": builder.tid(dispatch.track),
                    "args": [
                        "priority": "\(dispatch.priority)", "method": "\(dispatch.method)",
                        "source": dispatch.source.description, "bus": dispatch.busLabel,
                    ],
                ])
            case .unreceived(let dispatch):
                builder.events.append([
                    "ph": "i", "s": "t", "cat": "undelivered", "name": "\(dispatch.eventType) (no receiver)",
                    "ts": builder.microseconds(dispatch.timeNanoseconds), "pid": 1, "tid": builder.tid(dispatch.track),
                ])
            case .delivery(let delivery):
                let dispatch = delivery.dispatchID.flatMap {
                    dispatches[DispatchKey(busID: delivery.busID, dispatchID: $0)]
                }
                add(delivery, from: dispatch, to: &builder)
            }
        }
        let object: [String: Any] = ["traceEvents": builder.events, "displayTimeUnit": "ns"]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    private func add(
        _ delivery: EventFlowRecord.Delivery, from dispatch: EventFlowRecord.Dispatch?, to builder: inout Builder
    ) {
        let track = delivery.receiver?.name ?? "dropped or discarded"
        let tid = builder.tid(track)
        let args: [String: Any] = [
            "priority": "\(delivery.priority)", "method": "\(delivery.method)",
            "receiver": delivery.receiver?.description ?? "unknown", "outcome": delivery.outcome.label,
            "bus": delivery.busLabel,
        ]
        guard let start = delivery.startNanoseconds else {
            builder.events.append([
                "ph": "i", "s": "t", "cat": "delivery", "name": "\(delivery.eventType) (\(delivery.outcome.label))",
                "ts": builder.microseconds(delivery.endNanoseconds), "pid": 1, "tid": tid, "args": args,
            ])
            return
        }
        // A slice at least a microsecond long, so that the flow's end lies inside it.
        let duration = max(Double(delivery.durationNanoseconds) / 1_000, 1)
        builder.events.append([
            "ph": "X", "cat": "delivery", "name": delivery.eventType, "ts": builder.microseconds(start),
            "dur": duration, "pid": 1, "tid": tid, "args": args,
        ])
        guard let dispatch else { return }
        let flow = builder.nextFlow
        builder.nextFlow += 1
        builder.events.append([
            "ph": "s", "cat": "flow", "name": "event", "id": flow, "pid": 1, "tid": builder.tid(dispatch.track),
            "ts": builder.microseconds(dispatch.timeNanoseconds),
        ])
        builder.events.append([
            "ph": "f", "bp": "e", "cat": "flow", "name": "event", "id": flow, "pid": 1, "tid": tid,
            "ts": builder.microseconds(start),
        ])
    }
}
