// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Synchronization

/// How a mailbox's nodes come back: the links the drainer reads, the items it takes out without
/// running them, and the free list that takes a whole batch back at once (see ``_MailboxNodes``).
/// None of it runs once per event.
extension _MailboxNodes {
    /// Moves the item out of node `index`, which the caller owns and will not run; the node's
    /// slot is then empty, and the subscription a delivery held is released.
    func takeUnrun(_ index: UInt32) -> _UnrunItem {
        switch slot(index).item.move() {
        case .delivery(let envelope, let hold):
            hold.release()
            return .deliveries(envelope, count: 1)
        case .deliveries(let envelope, let hold, let run):
            hold.release()
            return .deliveries(envelope, count: Int(run.count))
        case .barrier(let body):
            return .barrier(body)
        }
    }

    /// The node under `index` in a stack, and the tag kept with it (what the drainer must know
    /// of the item without reading it: its lane).
    func linked(below index: UInt32) -> (below: UInt32, tag: UInt32) {
        let value = slot(index).link.pointee.load(ordering: .relaxed)
        return (UInt32(truncatingIfNeeded: value), UInt32(truncatingIfNeeded: value >> 32))
    }

    /// Names `below` as the node under `index` in a stack, with `tag`.
    func setLink(_ index: UInt32, to below: UInt32, tag: UInt32 = 0) {
        slot(index).link.pointee.store(UInt64(tag) << 32 | UInt64(below), ordering: .relaxed)
    }

    /// Returns the nodes from `top` down to `bottom` (linked, their items moved out) to the free
    /// list, with one compare-and-exchange.
    func free(top: UInt32, bottom: UInt32) {
        var head = freeHead.load(ordering: .relaxed)
        while true {
            setLink(bottom, to: UInt32(truncatingIfNeeded: head))
            let next = (head >> 32 &+ 1) << 32 | UInt64(top)
            let (exchanged, current) = freeHead.compareExchange(
                expected: head, desired: next, ordering: .releasing)
            if exchanged { return }
            head = current
        }
    }
}
