/// What a channel carries: plain messages, or the changes of a state.
enum _ChannelKind: UInt8, Sendable {
    case messages
    case state
}

/// The key of a channel created without one, so that it never equals a keyed channel.
struct _Unkeyed: Hashable, Sendable {}

/// Everything that tells two channels apart: kind, payload type, label and key.
///
/// Equality is the key's own `==`, through `AnyHashable` in ``_ChannelKey``: two keys whose
/// hashes collide are still two channels.
struct _ChannelIdentity<Key: Hashable & Sendable>: Hashable, Sendable {
    let kind: _ChannelKind
    let payloadType: ObjectIdentifier
    let label: String
    let key: Key
}

extension _ChannelKey {
    /// The registry key of the channel of `kind` carrying `payload`, named `label`, keyed by `key`.
    init<Payload, Key: Hashable & Sendable>(_ kind: _ChannelKind, _ payload: Payload.Type, label: String, key: Key) {
        self.init(_ChannelIdentity(kind: kind, payloadType: ObjectIdentifier(payload), label: label, key: key))
    }
}
