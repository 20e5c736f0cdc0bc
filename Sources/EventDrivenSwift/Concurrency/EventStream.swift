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

        /// The next element, or `nil` once the stream has ended.
        public mutating func next() async -> Element? {
            await base.next().map { transform($0.take()) }
        }

        /// The next element, or `nil` once the stream has ended.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await base.next(isolation: actor).map { transform($0.take()) }
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
