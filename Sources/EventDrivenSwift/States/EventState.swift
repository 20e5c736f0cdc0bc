// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// A named value that subscribers watch: a new subscriber first gets the current value, if
/// there is one, then every change.
///
/// ```swift
/// enum GameStates {
///     static let player1 = EventState<PlayerInfo>(label: "Player 1 State")
///     static func player(_ id: Int) -> EventState<PlayerInfo> { EventState(label: "Player", key: id) }
/// }
/// bus.subscribe(GameStates.player1) { info in print("Player 1 is now \(info)") }
/// bus.set(GameStates.player1, to: PlayerInfo(numberOfLives: 3, health: 75, armor: 10))
/// bus.value(of: GameStates.player1)   // the current value, without subscribing
/// ```
///
/// The current values live in the bus: each bus has its own. Setting a value equal to the
/// current one notifies no one. A state is told apart from the others by its value type, its
/// label and, for a keyed state, its key (compared with its own `==`); a state never shares
/// subscribers with an ``EventChannel`` of the same label.
public struct EventState<Value: Equatable & Sendable>: Hashable, Sendable, CustomStringConvertible {
    /// The state's name.
    public var label: String { name.label }
    /// The state's key, or `nil` for a state that has none.
    public var key: (any Hashable & Sendable)? { name.key }
    @usableFromInline let name: _ChannelName
    var identity: _ChannelKey { name.identity }

    /// A state named `label`.
    public init(label: String) { name = _ChannelName(.state, Value.self, label: label) }

    /// One state of the family named `label`, such as one per player id: equal keys make one
    /// state.
    public init<Key: Hashable & Sendable>(label: String, key: Key) {
        name = _ChannelName(.state, Value.self, label: label, key: key)
    }

    /// `true` when both name the same state: same type, label and key.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    /// Hashes the type, label and key.
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The type, label and key, for logs.
    public var description: String { name.describe(as: "EventState<\(Value.self)>") }
}
