import Dispatch

/// A handler for events of type `TEvent`: the event, the priority it was dispatched with, and
/// the monotonic time it was dispatched.
public typealias TypedEventCallback<TEvent: Eventable> =
    @Sendable (
        _ event: TEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
    ) -> Void

/// A filter for events of type `TEvent`; `true` means the listener wants the event.
public typealias TypedEventFilterCallback<TEvent: Eventable> =
    @Sendable (
        _ event: TEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
    ) -> Bool
