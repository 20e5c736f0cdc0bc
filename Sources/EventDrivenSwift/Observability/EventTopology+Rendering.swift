// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventTopology {
    /// The topology as a Mermaid flowchart (`flowchart LR`), which GitHub renders in Markdown:
    /// producers as rectangles, event types as stadiums, receivers as rounded rectangles, each
    /// edge labelled with its count. Event types that found no receiver and receivers that got
    /// nothing are drawn dashed (classes `unreceived` and `idle`).
    public var mermaid: String {
        let (producerIDs, eventIDs, receiverIDs) = nodeIDs
        var lines = ["flowchart LR"]
        for producer in producers { lines.append("    \(producerIDs[producer]!)[\"\(Self.escaped(producer))\"]") }
        for eventType in eventTypes { lines.append("    \(eventIDs[eventType]!)([\"\(Self.escaped(eventType))\"])") }
        for receiver in receivers { lines.append("    \(receiverIDs[receiver]!)(\"\(Self.escaped(receiver))\")") }
        for (link, count) in publishes.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(producerIDs[link.from]!) -->|\(count)| \(eventIDs[link.to]!)")
        }
        for (link, count) in deliveries.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(eventIDs[link.from]!) -->|\(count)| \(receiverIDs[link.to]!)")
        }
        lines.append("    classDef unreceived stroke-dasharray: 5 5,stroke:#c00")
        lines.append("    classDef idle stroke-dasharray: 5 5,stroke:#888")
        for eventType in unreceivedEventTypes.keys.sorted() {
            lines.append("    class \(eventIDs[eventType]!) unreceived")
        }
        for receiver in idleReceivers { lines.append("    class \(receiverIDs[receiver]!) idle") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The topology as a Graphviz DOT digraph, laid out left to right, with the same shapes,
    /// counts and dashed marks as ``mermaid``.
    public var dot: String {
        let (producerIDs, eventIDs, receiverIDs) = nodeIDs
        let unreceived = Set(unreceivedEventTypes.keys)
        let idle = Set(idleReceivers)
        var lines = ["digraph EventTopology {", "    rankdir=LR;"]
        for producer in producers {
            lines.append("    \(producerIDs[producer]!) [label=\"\(Self.escaped(producer))\", shape=box];")
        }
        for eventType in eventTypes {
            let style = unreceived.contains(eventType) ? ", style=dashed, color=red" : ""
            lines.append("    \(eventIDs[eventType]!) [label=\"\(Self.escaped(eventType))\", shape=ellipse\(style)];")
        }
        for receiver in receivers {
            let style = idle.contains(receiver) ? ", style=\"rounded,dashed\"" : ", style=rounded"
            lines.append("    \(receiverIDs[receiver]!) [label=\"\(Self.escaped(receiver))\", shape=box\(style)];")
        }
        for (link, count) in publishes.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(producerIDs[link.from]!) -> \(eventIDs[link.to]!) [label=\"\(count)\"];")
        }
        for (link, count) in deliveries.sorted(by: { $0.key < $1.key }) {
            lines.append("    \(eventIDs[link.from]!) -> \(receiverIDs[link.to]!) [label=\"\(count)\"];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A stable identifier per node: `p` producers, `e` event types, `r` receivers, numbered in
    /// sorted order, so that a name shared by two kinds of node stays two nodes.
    private var nodeIDs: (producers: [String: String], eventTypes: [String: String], receivers: [String: String]) {
        func numbered(_ names: [String], _ prefix: String) -> [String: String] {
            Dictionary(uniqueKeysWithValues: names.enumerated().map { ($0.element, "\(prefix)\($0.offset)") })
        }
        return (numbered(producers, "p"), numbered(eventTypes, "e"), numbered(receivers, "r"))
    }

    private static func escaped(_ name: String) -> String {
        name.replacingOccurrences(of: "\"", with: "'")
    }
}
