/// The identity of a labelled or keyed channel: equal keys are one channel.
///
/// Built only from `Sendable` values, so the type-erased box is safe to share.
struct _ChannelKey: Hashable, @unchecked Sendable {  // `base` wraps a Sendable & Hashable value, checked by the initializer
    let base: AnyHashable

    init<Key: Hashable & Sendable>(_ key: Key) {
        base = AnyHashable(key)
    }
}
