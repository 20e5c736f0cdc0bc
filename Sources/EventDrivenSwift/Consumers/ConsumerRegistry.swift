// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// The consumers of one bus, in registration order: an immutable snapshot, replaced whenever
/// one is added or removed, which dispatch reads only while it is not empty.
final class _ConsumerRegistry: Sendable {
    private let entries = LockedValue<[_ConsumerEntry]>([])
    /// Mirrors `entries.count` so that dispatch checks for consumers without the lock.
    let count = Atomic<Int>(0)
    /// How many entries consume ``DidConsumeEvent``.
    private let noticeConsumers = Atomic<Int>(0)

    /// `true` while no consumer is registered; a relaxed load, cheap enough for every dispatch.
    var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    /// `true` while a registered consumer consumes ``DidConsumeEvent``.
    var wantsNotices: Bool { noticeConsumers.load(ordering: .relaxed) > 0 }

    var snapshot: [_ConsumerEntry] { entries.withLock { $0 } }

    /// Adds `consumer` at the end; returns `false` if it is already registered.
    func add(_ consumer: any EventConsumer) -> Bool {
        let entry = _ConsumerEntry(consumer)
        return update { entries in
            guard !entries.contains(where: { $0.consumer === consumer }) else { return false }
            entries.append(entry)
            return true
        }
    }

    /// Removes `consumer`; returns `false` if it was not registered.
    func remove(_ consumer: any EventConsumer) -> Bool {
        update { entries in
            let before = entries.count
            entries.removeAll { $0.consumer === consumer }
            return entries.count != before
        }
    }

    /// Drops the entries whose consumer has been freed.
    func pruneReleased() {
        _ = update { entries in
            entries.removeAll { $0.consumer == nil }
            return true
        }
    }

    private func update(_ body: (inout [_ConsumerEntry]) -> Bool) -> Bool {
        entries.withLock { entries in
            entries.removeAll { $0.consumer == nil }
            let result = body(&entries)
            count.store(entries.count, ordering: .relaxed)
            noticeConsumers.store(entries.count { $0.consumesNotices }, ordering: .relaxed)
            return result
        }
    }
}

/// One registered consumer, held weakly, with the type lists it had at registration.
///
/// ``NoEvent`` means what SwiftEventBus's own tests say it means: in `willConsume` the consumer
/// takes nothing, whatever else the lists hold; in `excludeList` it takes every event, whatever
/// else the lists hold (as a catch-all does: the did-consume notices only if `willConsume` names
/// ``DidConsumeEvent``).
struct _ConsumerEntry: Sendable {
    weak let consumer: (any EventConsumer)?
    private let catchAll: Bool
    private let excludesAll: Bool
    private let consumes: Set<ObjectIdentifier>
    private let excludes: Set<ObjectIdentifier>

    init(_ consumer: any EventConsumer) {
        self.consumer = consumer
        var willConsume = Set(consumer.willConsume.map { ObjectIdentifier($0) })
        var excludeList = Set(consumer.excludeList.map { ObjectIdentifier($0) })
        let all = ObjectIdentifier(AllEvents.self)
        let none = ObjectIdentifier(NoEvent.self)
        if willConsume.contains(none) {
            (willConsume, excludeList) = ([], [all])
        } else if excludeList.contains(none) {
            willConsume.formIntersection([ObjectIdentifier(DidConsumeEvent.self)])
            (willConsume, excludeList) = (willConsume.union([all]), [])
        }
        catchAll = willConsume.contains(all)
        excludesAll = excludeList.contains(all)
        consumes = willConsume
        excludes = excludeList
    }

    /// Whether the consumer takes events of the type `type`.
    func accepts(_ type: ObjectIdentifier) -> Bool {
        if excludesAll || excludes.contains(type) { return false }
        if consumes.contains(type) { return true }
        return catchAll && type != ObjectIdentifier(DidConsumeEvent.self)
    }

    var consumesNotices: Bool { accepts(ObjectIdentifier(DidConsumeEvent.self)) }
}
