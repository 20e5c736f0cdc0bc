// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

/// The receiver of an async listener: one task that runs the handler for each delivery in turn,
/// in the order the deliveries arrived, never a task per event.
///
/// It is also the subscription's registrar, so removing the listener, its owner going away or the
/// bus shutting down ends the task once it has worked through what it already holds.
final class _SerialHandlerSink: _DrainableSink, _SubscriptionRegistrar {
    enum Item: Sendable {
        case delivery(_EventEnvelope, _Subscription)
        case barrier(@Sendable () -> Void)
    }

    /// Whether the consumer was told to finish, and whether it has worked through its stream.
    struct Progress {
        /// The consumer has been told to finish; guards `continuation` so that a barrier is never
        /// yielded into a finished stream, where it would never run.
        var isFinished = false
        /// The consumer has handled everything it was given and ended.
        var isCompleted = false
        /// Barriers that arrived after the finish, run when the consumer ends.
        var lateBarriers: [@Sendable () -> Void] = []
    }

    private let continuation: AsyncStream<Item>.Continuation
    private let progress = LockedValue(Progress())
    /// Deliveries given to the consumer and not yet taken by it, for the count of what is pending
    /// (``EventBusNotQuietError/pendingDeliveries``).
    let held = _UnreadCount()
    /// Which delivery's handler runs, and whether it awaits `drain()` or `waitUntilQuiet()`,
    /// which other such waits then leave this listener out of (see ``_ListenerHandlerMark``).
    let handlerMark = _ListenerHandlerMark()
    private weak let bus: EventBus?

    /// Starts the consumer task, which calls `handler` for each delivery that its subscription
    /// still accepts when its turn comes.
    init(
        bus: EventBus,
        handler: @escaping @Sendable (any Eventable, EventMetadata) async throws -> Void
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        self.continuation = continuation
        self.bus = bus
        let counters = bus.counters
        let progress = progress
        let held = held
        let handlerMark = handlerMark
        Task { [weak bus] in
            var deliveries: UInt64 = 0
            // The stream's next delivery is taken without suspending while it holds some: the task
            // yields its thread once per slice, so that the rest of the process takes turns; as a
            // serial context does, after 100 µs while deliveries pile up, after 1 ms while it
            // keeps up with them one at a time.
            let slice = _MailboxExecutor.sliceNanoseconds
            var sliceStart = DispatchTime._eventNanoseconds
            defer {
                let late = progress.withLock { progress in
                    progress.isCompleted = true
                    defer { progress.lateBarriers = [] }
                    return progress.lateBarriers
                }
                for barrier in late { barrier() }
            }
            for await item in stream {
                let elapsed = DispatchTime._eventNanoseconds &- sliceStart
                if elapsed >= slice && (held.count.load(ordering: .relaxed) > 1 || elapsed >= 10 * slice) {
                    await Task.yield()
                    sliceStart = DispatchTime._eventNanoseconds
                }
                switch item {
                case .barrier(let body):
                    // Acquires what `addBarrier` released (see `deliver` for why).
                    _ = held.count.load(ordering: .acquiring)
                    body()
                case .delivery(let envelope, let subscription):
                    // Acquires what `deliver` released (see there for why).
                    held.count.subtract(1, ordering: .acquiring)
                    // The subscription's own handler is empty: `deliver` only applies its checks
                    // (removed, owner freed, interest) and tells whether the handler may run.
                    let outcome = subscription.deliver(envelope)
                    guard outcome == .delivered else {
                        counters.settle(outcome, envelope)
                        continue
                    }
                    do {
                        // With the event's service context current, through the bus's interceptors,
                        // marked as a handler (its dispatches are follow-ups a graceful stop lets
                        // through; its drains leave this listener out while it runs).
                        deliveries += 1
                        handlerMark.handlerStarts(deliveries)
                        defer { handlerMark.handlerEnds() }
                        try await _HandlerScope.$task.withValue(.serialListener(handlerMark, delivery: deliveries)) {
                            try await counters.observation.run(
                                { try await handler(envelope.event, envelope.metadata) }, for: envelope,
                                receiver: subscription.receiver)
                        }
                        counters.settle(.delivered, envelope)
                    } catch is _OwnerReleasedBeforeHandler {
                        // The actor was freed between the subscription's check and the handler.
                        counters.settle(.ownerGone, envelope)
                    } catch {
                        bus?.report(
                            .handlerFailed(
                                event: envelope.event, metadata: envelope.metadata,
                                receiver: "an async listener's task", error: error))
                        counters.settle(.failed, envelope)
                    }
                }
            }
        }
    }

    deinit {
        continuation.finish()
    }

    func deliver(_ envelope: _EventEnvelope, for subscription: _Subscription) {
        // Releasing (free: an addition is a locked instruction either way), so that the consumer
        // task's acquiring subtraction orders the event's writes before its reads where the
        // stream's hand-over does so unseen by ThreadSanitizer (`StreamHandoffTests`).
        held.count.add(1, ordering: .releasing)
        let result = progress.withLock { progress in
            progress.isFinished ? .terminated : continuation.yield(.delivery(envelope, subscription))
        }
        if case .terminated = result {
            held.count.subtract(1, ordering: .relaxed)
            bus?.counters.discarded.add(1, ordering: .relaxed)
            bus?.counters.deadLetters.post(envelope, reason: .discarded)
        }
    }

    /// Runs `body` after the deliveries accepted before it: in turn while the consumer runs,
    /// when the consumer ends if it was told to finish, at once if it has ended.
    func addBarrier(_ body: @escaping @Sendable () -> Void) {
        held.count.add(0, ordering: .releasing)  // for the consumer's acquiring load (`deliver`)
        let queued = progress.withLock { progress in
            if progress.isCompleted { return false }
            if progress.isFinished {
                progress.lateBarriers.append(body)
                return true
            }
            if case .enqueued = continuation.yield(.barrier(body)) { return true }
            return false
        }
        if !queued { body() }
    }

    var observation: _Observation? { bus?.counters.observation }
    var receiverKind: EventReceiverKind { .async }

    func register(_ subscription: _Subscription) {
        bus?.register(subscription)
    }

    func unregister(_ subscription: _Subscription) {
        // What the consumer already holds still runs (or is counted as removed): the sink stays
        // visible to `drain()` from before the removal until the consumer has ended.
        guard let bus else { return finish() }
        let id = bus.keepDrainable(self)
        bus.unregister(subscription)
        finish()
        addBarrier { [weak bus] in bus?.forgetDrainable(id) }
    }

    private func finish() {
        progress.withLock { progress in
            progress.isFinished = true
            continuation.finish()
        }
    }
}

/// Thrown by an actor listener's handler wrapper when its actor was freed after the delivery's
/// owner check and before the handler could take it: the delivery is counted `ownerReleased`,
/// not `delivered` or `failed`, and interceptors see it so.
struct _OwnerReleasedBeforeHandler: Error {}
