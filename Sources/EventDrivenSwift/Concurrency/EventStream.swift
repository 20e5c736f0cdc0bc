// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// An asynchronous sequence of the events of one type dispatched on a bus.
///
/// Made by ``EventBus/events(of:bufferingPolicy:)`` and ``Eventable/events(on:bufferingPolicy:)``;
/// see there for when it ends and in what order it yields.
public struct EventStream<Element: Sendable>: AsyncSequence, Sendable {
    /// A stream never throws: it ends instead.
    public typealias Failure = Never

    let base: AsyncStream<_StreamDelivery>
    let transform: @Sendable (_EventEnvelope) -> Element

    /// An iterator over the stream; iterate it from one task.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), transform: transform)
    }

    /// Yields the stream's events; `nil` once the stream has ended.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<_StreamDelivery>.AsyncIterator
        let transform: @Sendable (_EventEnvelope) -> Element

        /// The next element, or `nil` once the stream has ended: when the bus shut down and
        /// the buffer is empty, or as soon as the iterating task is cancelled (what the buffer
        /// still holds is then counted as discarded, not delivered).
        public mutating func next() async -> Element? {
            if Task.isCancelled { return await discardBuffered(isolation: nil) }
            return await base.next().map { transform($0.take()) }
        }

        /// The next element, or `nil` once the stream has ended (see ``next()``).
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            if Task.isCancelled { return await discardBuffered(isolation: actor) }
            return await base.next(isolation: actor).map { transform($0.take()) }
        }

        /// Ends the stream of a cancelled task: `AsyncStream` alone would go on yielding what it
        /// had buffered. What it still holds is counted as discarded now, not when the stream is
        /// freed; the cancelled stream has ended, so this takes only what is buffered.
        private mutating func discardBuffered(isolation actor: isolated (any Actor)?) async -> Element? {
            while let delivery = await base.next(isolation: actor) { delivery.settle(.removed) }
            return nil
        }
    }
}

/// How many events an ``EventStream`` keeps while its consumer is busy.
public enum EventBufferingPolicy: Sendable, Hashable {
    /// Keeps every event (the default): the buffer grows while the consumer is slower.
    case unbounded
    /// Keeps the oldest `n` events; newer ones are dropped while the buffer is full.
    case bufferingOldest(Int)
    /// Keeps the newest `n` events; the oldest is dropped to make room.
    case bufferingNewest(Int)

    var streamPolicy: AsyncStream<_StreamDelivery>.Continuation.BufferingPolicy {
        switch self {
        case .unbounded: .unbounded
        case .bufferingOldest(let limit): .bufferingOldest(limit)
        case .bufferingNewest(let limit): .bufferingNewest(limit)
        }
    }
}
