// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Logging

/// Prints what a bus logs as one tidy line, without the timestamp of swift-log's default handler,
/// so that the demo prints the same lines every run.
///
/// A bus logs through the `Logger` it was given (`EventBus(label:logger:)`): every reported
/// error (misuse, a handler that threw, a dispatch after shutdown) at level `error`, and a
/// main-actor backlog that waits over a second at level `warning`. A program that wants no log at
/// all passes `Logger(label: "…", factory: { _ in SwiftLogNoOpLogHandler() })`.
struct DemoLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let bus = event.metadata?["bus"].map { " (bus \($0))" } ?? ""
        print("    log, level \(event.level)\(bus): \(event.message)")
    }
}

extension EventBus {
    /// A bus of the demo's own: each section makes one, so nothing it dispatches is seen by
    /// another section, and shuts it down at its end.
    static func demo(_ label: String) -> EventBus {
        EventBus(label: label, logger: Logger(label: "TemperatureDemo") { _ in DemoLogHandler() })
    }
}
