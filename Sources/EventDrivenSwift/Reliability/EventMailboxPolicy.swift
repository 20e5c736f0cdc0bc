// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// How many events a receiver's mailbox holds, and what happens when it is full.
///
/// Mailboxes are unbounded by default: a producer never waits and nothing is dropped, and a
/// receiver that is slower than its producers lets its backlog grow. Choose a bound per
/// receiver by overriding ``EventThread/mailboxPolicy`` in an `EventThread` subclass (it applies
/// to every instance, including those of an ``EventPool``).
///
/// ```swift
/// final class Renderer: EventThread {
///     override class var mailboxPolicy: EventMailboxPolicy {
///         .bounded(capacity: 1_000, whenFull: .dropOldest)
///     }
/// }
/// ```
public enum EventMailboxPolicy: Sendable, Hashable {
    /// No limit (the default).
    case unbounded
    /// At most `capacity` events wait (not counting the batch the receiver is running); `whenFull`
    /// decides what happens to one more.
    ///
    /// An event for several listeners on the receiver counts once per listener, and its
    /// deliveries are taken or refused together: while fewer than `capacity` wait, the mailbox
    /// takes all of them (it can then hold up to the number of those listeners minus one more
    /// than `capacity`); when it is full, `.blockProducer`, `.dropNewest` and `.failDispatch`
    /// apply to all of them. `.dropOldest` takes every event, and when the receiver takes its
    /// pending events it keeps the newest events while fewer than `capacity` of their deliveries
    /// are kept, each event's deliveries together, and drops the older events whole.
    ///
    /// - Precondition: `capacity >= 1`, checked when a thread of the class that declares the
    ///   policy is made: a smaller capacity stops the process with "a bounded mailbox needs a
    ///   capacity of at least 1".
    case bounded(capacity: Int, whenFull: EventOverflowPolicy)
}

/// What a full bounded mailbox does with one more event.
///
/// Every event a policy drops is counted in ``EventBusStatistics/dropped`` and in the receiver's
/// ``EventThread/droppedEventCount``, and posted as a dead letter (``DeadLetter/Reason/dropped``).
public enum EventOverflowPolicy: Sendable, Hashable {
    /// The producer waits until the receiver takes its pending events, or until `timeout` has
    /// passed (`nil`: no limit), after which the event is dropped. A zero or negative `timeout`
    /// does not wait: a full mailbox drops the event at once. A producer that is the
    /// receiver itself (a handler dispatching to its own thread, or to its own pool, whose threads
    /// may be waiting for each other) never waits: its event is accepted over capacity, so that
    /// D5 holds; nor does main-queue code dispatching to a
    /// receiver that drains on the main queue (a ``UIEventThread``), which could make room only
    /// once that code returned. Two receivers that dispatch to each other while both are full
    /// can wait on each other: give them a timeout.
    ///
    /// On the main thread, this is the one wait the dispatch path may make: a dispatch to a full
    /// receiver on another thread blocks the main thread until that receiver takes its pending
    /// events (its callback in progress returns), for as long as `timeout` allows. It is the
    /// back-pressure you chose; give main-thread producers a short `timeout`, or another policy.
    case blockProducer(timeout: Duration?)
    /// The new event is dropped.
    case dropNewest
    /// The event that has waited longest is dropped to make room.
    case dropOldest
    /// The new event is dropped and the dispatch fails: ``EventBus/tryDispatch(_:method:priority:file:line:)``
    /// throws ``EventDrivenError/Code/mailboxFull``; the plain dispatch methods
    /// report it to the bus's error handler and log.
    case failDispatch
}
