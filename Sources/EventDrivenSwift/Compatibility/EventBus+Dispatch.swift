// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventBus {
    /// SwiftEventBus's `eventBus.dispatch(event)`: forwards to ``dispatchNow(_:priority:file:line:)``,
    /// so the bus's consumers, then its `.synchronous` listeners, have handled `event` when it
    /// returns, as SwiftEventBus's consumers had.
    @inlinable
    public func dispatch<E: Eventable>(_ event: E, file: StaticString = #fileID, line: UInt = #line) {
        dispatchNow(event, file: file, line: line)
    }
}

/// SwiftEventBus's name for ``AllEvents``: the same type, so `willConsume: [AllEvent.self]` is a
/// catch-all.
public typealias AllEvent = AllEvents
