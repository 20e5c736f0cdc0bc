// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

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

/// The name of a channel or state: its label and key, with the identity that the registry and
/// `==` use. ``EventChannel`` and ``EventState`` each store one.
@usableFromInline
struct _ChannelName: Hashable, Sendable {
    let label: String
    let key: (any Hashable & Sendable)?
    @usableFromInline let identity: _ChannelKey

    init<Payload>(_ kind: _ChannelKind, _ payload: Payload.Type, label: String) {
        self.label = label
        self.key = nil
        self.identity = _ChannelKey(kind, payload, label: label, key: _Unkeyed())
    }

    init<Payload, Key: Hashable & Sendable>(_ kind: _ChannelKind, _ payload: Payload.Type, label: String, key: Key) {
        self.label = label
        self.key = key
        self.identity = _ChannelKey(kind, payload, label: label, key: key)
    }

    @usableFromInline static func == (lhs: Self, rhs: Self) -> Bool { lhs.identity == rhs.identity }
    @usableFromInline func hash(into hasher: inout Hasher) { hasher.combine(identity) }

    /// `typeName(label: "…", key: …)`, for logs.
    func describe(as typeName: String) -> String {
        let key = key.map { ", key: \($0)" } ?? ""
        return "\(typeName)(label: \"\(label)\"\(key))"
    }
}
