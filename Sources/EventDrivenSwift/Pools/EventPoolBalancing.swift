// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Chooses which thread of an ``EventPool`` receives each event.
///
/// The pool calls ``selectMember(for:metadata:among:)`` on the dispatching thread, once per
/// event, possibly from several threads at once, so an implementation must be thread-safe and
/// quick. Implement it in your own module to balance by any rule:
///
/// ```swift
/// struct FirstIdleBalancer: EventPoolBalancing {
///     func selectMember(for event: any Eventable, metadata: EventMetadata, among members: EventPoolMembers) -> Int {
///         members.firstIndex { $0.load == 0 } ?? 0
///     }
/// }
/// ```
public protocol EventPoolBalancing: Sendable {
    /// Returns the index, within `members`, of the thread that receives `event`.
    ///
    /// `members` is never empty. An index outside `members.indices` is reduced modulo
    /// `members.count`, so a balancer never makes the pool crash.
    func selectMember(for event: any Eventable, metadata: EventMetadata, among members: EventPoolMembers) -> Int

    /// `true` when the balancer keeps related events in order by sending them to one thread,
    /// and its choice depends on the number of threads.
    ///
    /// While the threads of such a pool change, the pool holds new events back until every
    /// thread has handled the events it had accepted, then releases them in arrival order, so
    /// no event overtakes an earlier one on its way to a different thread.
    var requiresOrderedHandover: Bool { get }
}

extension EventPoolBalancing {
    /// `false`: by default a balancer does not ask the pool to hold events while its threads change.
    public var requiresOrderedHandover: Bool { false }
}

/// One thread of an ``EventPool``, as a balancer sees it.
public struct EventPoolMember: Sendable, Identifiable {
    /// Identifies the thread for as long as it belongs to the pool; never reused within a pool.
    public let id: Int
    let mailbox: _Mailbox

    /// The events waiting for this thread plus those of the batch it is running.
    ///
    /// Read at the moment of the call; another dispatching thread may change it right after.
    public var load: Int { mailbox.load }
}

/// The threads of an ``EventPool`` that can receive one event type, in a stable order.
public struct EventPoolMembers: RandomAccessCollection, Sendable {
    let members: [EventPoolMember]
    /// Changes whenever the pool's threads change, so a balancer can cache per membership.
    public let generation: UInt64

    init(_ members: [EventPoolMember], generation: UInt64) {
        self.members = members
        self.generation = generation
    }

    /// The position of the first thread.
    public var startIndex: Int { members.startIndex }
    /// The position after the last thread.
    public var endIndex: Int { members.endIndex }
    /// The thread at `position`.
    public subscript(position: Int) -> EventPoolMember { members[position] }
}
