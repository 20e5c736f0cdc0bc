// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// One dispatch, as an ``EventInterceptor`` sees it.
public struct EventDispatchInfo: Sendable {
    /// The label of the bus the event was dispatched on.
    public let busLabel: String
    /// The event.
    public let event: any Eventable
    /// The event's type name, `String(reflecting:)` (worked out once per type).
    public let eventType: String
    /// Its priority, method and dispatch time.
    public let metadata: EventMetadata
    /// The number the bus gave this dispatch; its deliveries carry it too
    /// (``EventDeliveryInfo/dispatchID``). 0 for a dispatch that was rejected.
    public let dispatchID: UInt64
    /// Where the event was dispatched from.
    public let source: EventSource
    /// The bus's number in this process (see ``_Observation/busID``).
    let busID: UInt64
}

/// Where an event was dispatched from: a receiver of the bus whose handler dispatched it (an
/// EventThread, the listener thread…), or else the file and line of the dispatch call.
public struct EventSource: Sendable, Hashable, CustomStringConvertible {
    /// The receiver whose handler was running where the event was dispatched, in words
    /// (such as `EventThread(Thermostat)`); `nil` when the dispatch came from elsewhere.
    public let component: String?
    /// The `#fileID` of the dispatch call, or `"?"` when the dispatch API does not record it.
    public let fileID: String
    /// The line of the dispatch call, or 0.
    public let line: Int

    /// Creates a source.
    public init(component: String?, fileID: String, line: Int) {
        self.component = component
        self.fileID = fileID
        self.line = line
    }

    /// The component if known, else `fileID:line`.
    public var description: String { component ?? "\(fileID):\(line)" }
}

/// Where a dispatch call is in the source, carried from the inlinable dispatch APIs.
@usableFromInline
struct _DispatchSite: Sendable {
    @usableFromInline let fileID: StaticString
    @usableFromInline let line: UInt

    @inlinable
    init(fileID: StaticString, line: UInt) {
        self.fileID = fileID
        self.line = line
    }

    /// A dispatch made by the library itself (a scheduled dispatch, a state, a channel).
    @usableFromInline
    static var library: _DispatchSite { _DispatchSite(fileID: "?", line: 0) }
}
