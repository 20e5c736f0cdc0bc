// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The identity of a labelled or keyed channel: equal keys are one channel.
///
/// Built only from `Sendable` values, so the type-erased box is safe to share.
// @unchecked Sendable: `base` wraps a Sendable & Hashable value, checked by the initializer
struct _ChannelKey: Hashable, @unchecked Sendable {
    let base: AnyHashable

    init<Key: Hashable & Sendable>(_ key: Key) {
        base = AnyHashable(key)
    }
}
