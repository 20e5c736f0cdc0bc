// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A named, typed channel: subscribers get the `Message` values published on it.
///
/// The same message type can travel on several channels; a channel is told apart from the
/// others by its message type, its label and, for a keyed channel, its key:
///
/// ```swift
/// enum MyEvents {
///     static let interesting = EventChannel<InterestingMessage>(label: "An interesting event")
///     static let strings = EventChannel<String>(label: "An event with a String message")
///     static func player(_ id: Int) -> EventChannel<PlayerMove> { EventChannel(label: "Player moves", key: id) }
/// }
/// bus.subscribe(MyEvents.strings) { string in print(string) }
/// bus.publish(MyEvents.strings, "Hello")
/// ```
///
/// A channel is a plain value: create it wherever it is needed, and equal channels reach the
/// same subscribers. Keys are compared with their own `==`, never by hash alone, so different
/// keys never see each other's messages.
public struct EventChannel<Message: Sendable>: Hashable, Sendable, CustomStringConvertible {
    /// The channel's name.
    public var label: String { name.label }
    /// The channel's key, or `nil` for a channel that has none.
    public var key: (any Hashable & Sendable)? { name.key }
    @usableFromInline let name: _ChannelName
    @usableFromInline var identity: _ChannelKey { name.identity }

    /// A channel named `label`.
    public init(label: String) { name = _ChannelName(.messages, Message.self, label: label) }

    /// One channel of the family named `label`, such as one per player id: equal keys make one
    /// channel.
    public init<Key: Hashable & Sendable>(label: String, key: Key) {
        name = _ChannelName(.messages, Message.self, label: label, key: key)
    }

    /// `true` when both name the same channel: same type, label and key.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    /// Hashes the type, label and key.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The type, label and key, for logs.
    public var description: String { name.describe(as: "EventChannel<\(Message.self)>") }
}
