// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Members are shown by id and load: their mailbox holds atomics, which trap when copied by
/// reflection (Swift 6.3).
extension EventPoolMember: CustomReflectable, CustomStringConvertible {
    /// The id and the load.
    public var description: String { "EventPoolMember(id: \(id), load: \(load))" }

    /// The id and the load.
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "load": load], displayStyle: .struct)
    }
}

extension EventPoolMembers: CustomReflectable, CustomStringConvertible {
    /// The generation and the members.
    public var description: String { "EventPoolMembers(generation: \(generation), \(Array(self)))" }

    /// The members, as a collection.
    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: Array(self), displayStyle: .collection)
    }
}
