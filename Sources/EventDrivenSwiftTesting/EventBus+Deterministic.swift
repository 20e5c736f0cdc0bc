// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

@_spi(Testing) import EventDrivenSwift

extension EventBus {
    /// Creates a bus whose listeners all run synchronously, in registration order, so that a
    /// unit test of your code can check the outcome as soon as an event is dispatched.
    ///
    /// ```swift
    /// let bus = EventBus.deterministic()
    /// let seen = LockedValue<[Float]>([])
    /// bus.listen(TemperatureEvent.self, executeOn: .listenerThread) { event, _ in
    ///     seen.withLock { $0.append(event.temperatureInCelsius) }
    /// }
    /// TemperatureEvent(temperatureInCelsius: 31).queue(on: bus)
    /// #expect(seen.withLock { $0 } == [31])           // handled before queue(on:) returned
    /// ```
    ///
    /// Every listener registered with `listen` or `addListener`, and every channel or state
    /// subscriber, gets `DeliveryContext.synchronous` whatever `executeOn` (or delivery context)
    /// it asked for — except `DeliveryContext.mainActor`, whose callbacks may assume the main
    /// actor, and `.queue(q)` and `.thread(t)`, which name a queue or thread of the caller's own
    /// (see the last item below). Each dispatch (`queue`, `stack`, `dispatchNow`) runs those
    /// handlers on the calling thread, before it returns.
    ///
    /// Differences from production delivery, which a test of code that depends on them must
    /// not run on this bus:
    /// - No batching and no D3 reordering: each handler sees each event when it is dispatched,
    ///   so priorities and queue/stack do not reorder anything, and a stacked event does not
    ///   overtake queued ones.
    /// - A handler that dispatches runs the handlers of that event before its own dispatch
    ///   returns (depth first), where production would deliver it on the receiver's next turn.
    ///   Each hop nests on the stack, so a chain of handlers that queue the next event stops at
    ///   `EventBus.maximumSynchronousDepth` (64 unless set): the link that would go deeper is
    ///   counted as failed and reported as `EventDrivenError.synchronousDepthExceeded`, where a
    ///   production bus runs the whole chain.
    /// - Handlers run on the dispatching thread: two threads dispatching run them concurrently,
    ///   and `.requesterThread` does not follow the registering actor (the handlers are
    ///   `@Sendable`, so this is safe). `.latestOnly` never skips anything, and `.youngerThan`
    ///   sees ages of a few microseconds (see ``ManualClock/dispatch(_:on:age:method:priority:)``
    ///   for older events).
    /// - Not made synchronous: `DeliveryContext.mainActor` listeners, `@MainActor`, async and
    ///   actor handlers, event streams, `EventThread` callbacks, `EventPool`s, and subscribers
    ///   that named a queue or thread of their own. They deliver as in production; `await
    ///   bus.drain()` waits for them, `try await bus.waitUntilQuiet()` also for what they dispatch.
    ///
    /// - Parameter label: A name for logs and diagnostics.
    public static func deterministic(label: String = "DeterministicEventBus") -> EventBus {
        EventBus(synchronousForTestingLabel: label)
    }

    /// `true` for a bus made by ``deterministic(label:)``.
    public var isDeterministic: Bool { isSynchronousForTesting }
}
