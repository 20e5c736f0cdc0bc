// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The identity of a labelled or keyed channel: equal keys are one channel.
///
/// The type-erased identity and its hash are worked out once, when the channel is made
/// (``EventChannel``, ``EventState``), and shared by every copy of it: a publish hashes one
/// integer to find its channel, and compares the identities only when the channel it finds was
/// made apart from the one it publishes on (two `EventChannel(label:)` values with the same
/// label). Before, hashing and comparing the type-erased identity on every publish took about
/// 4,600 instructions (callgrind, `EDSBench --only S1 --contenders "EDS channel"`).
@usableFromInline
struct _ChannelKey: Hashable, Sendable {
    @usableFromInline let storage: _ChannelKeyStorage

    init<Key: Hashable & Sendable>(_ key: Key) {
        storage = _ChannelKeyStorage(AnyHashable(key))
    }

    /// The type-erased identity, for messages.
    var base: AnyHashable { storage.base }

    @usableFromInline
    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.storage === rhs.storage || (lhs.storage.hash == rhs.storage.hash && lhs.storage.base == rhs.storage.base)
    }

    @usableFromInline
    func hash(into hasher: inout Hasher) { hasher.combine(storage.hash) }
}

/// A channel's type-erased identity with its hash, made once per channel value.
// @unchecked Sendable: immutable, and `base` wraps a Sendable & Hashable value (``_ChannelKey/init(_:)``)
@usableFromInline
final class _ChannelKeyStorage: @unchecked Sendable {
    let base: AnyHashable
    let hash: Int

    init(_ base: AnyHashable) {
        self.base = base
        self.hash = base.hashValue
    }
}
