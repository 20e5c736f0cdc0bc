// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch

/// A handler for events of type `TEvent`: the event, the priority it was dispatched with, and
/// the monotonic time it was dispatched.
public typealias TypedEventCallback<TEvent: Eventable> =
    @Sendable (
        _ event: TEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
    ) -> Void

/// A handler for events of type `TEvent` that may be isolated to an actor: what an unapplied
/// method (`Model.onEvent`) gives once applied to its owner. A method of a `@MainActor` class
/// is isolated to the main actor, and the listener runs it there.
public typealias IsolatedEventCallback<TEvent: Eventable> =
    @Sendable @isolated(any) (
        _ event: TEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
    ) -> Void

/// A filter for events of type `TEvent`; `true` means the listener wants the event.
///
/// It runs where the listener runs. It may be isolated to that listener's actor: a method of a
/// `@MainActor` model (`customFilter: onTemperatureRatingEventFilter`) filters for a listener that
/// runs on the main actor; given to a listener that runs elsewhere, the registration fails with
/// ``EventDrivenError/Code/customFilterIsolation``.
public typealias TypedEventFilterCallback<TEvent: Eventable> =
    @Sendable @isolated(any) (
        _ event: TEvent, _ priority: EventPriority, _ dispatchTime: DispatchTime
    ) -> Bool
