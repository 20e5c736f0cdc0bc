// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventBus {
    /// Calls `handler` with every message published on `channel` from now on, where the handler
    /// was written: a closure written in `@MainActor` code (a view model) runs on the main actor,
    /// one written in an actor that uses the actor's state runs on that actor, any other closure
    /// in the caller's serial context (``DeliveryContext/requesterThread``).
    ///
    /// The closure takes the isolation of the code around it, as `Task { }` does, so it may touch
    /// that code's state without annotations; messages reach it one at a time, in order. To run
    /// the handler elsewhere, pass `on:`: that form takes a `@Sendable` closure.
    @discardableResult
    public func subscribe<Message>(
        _ channel: EventChannel<Message>,
        isolation: (any Actor)? = #isolation,
        @_inheritActorContext _ handler: @escaping @Sendable @isolated(any) (Message) -> Void
    ) -> ChannelSubscription {
        subscribe(channel, on: .requesterThread, isolation: handler.isolation ?? isolation) { (message: Message) in
            _callOnItsIsolation(handler, message)
        }
    }

    /// Calls `handler` with the current value of `state`, if it has one, then with every change,
    /// where the handler was written: a closure written in `@MainActor` code runs on the main
    /// actor, one written in an actor that uses the actor's state on that actor, any other
    /// closure in the caller's serial context (``DeliveryContext/requesterThread``).
    ///
    /// The current value reaches the handler before any later change. To run the handler
    /// elsewhere, pass `on:`: that form takes a `@Sendable` closure.
    @discardableResult
    public func subscribe<Value>(
        _ state: EventState<Value>,
        isolation: (any Actor)? = #isolation,
        @_inheritActorContext _ handler: @escaping @Sendable @isolated(any) (Value) -> Void
    ) -> ChannelSubscription {
        subscribe(state, on: .requesterThread, isolation: handler.isolation ?? isolation) { (value: Value) in
            _callOnItsIsolation(handler, value)
        }
    }
}
